// The soak and the convergence sweep are run by hand (docs/reliability.md, docs/parallel.md): `--help` says how,
// and a mistyped option is named with what to do, not a stack trace (parseArgs throws on both by default).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const run = (script: string, ...args: string[]) => {
  const p = Bun.spawnSync(["bun", join(import.meta.dir, "../scripts", script), ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

describe("the dev scripts' help", () => {
  for (const [script, options] of [
    ["converge.ts", ["--runs", "--seed"]],
    ["soak.ts", ["--kills", "--seed", "--mode", "--from"]],
    ["diff-read-commands.ts", ["--seed", "--cases", "--only", "--work"]],
  ] as const) {
    test(`${script} --help prints its usage and runs nothing`, () => {
      const r = run(script, "--help");
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      for (const o of options) expect(r.out).toContain(o);
    });

    test(`${script} with an unknown option names it and says to see --help`, () => {
      const r = run(script, "--bogus");
      expect(r.code).toBe(2);
      expect(r.err).toContain("--bogus");
      expect(r.err).toContain("--help");
      expect(r.err).not.toContain("    at ");
    });
  }
});
