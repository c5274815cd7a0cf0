// `bun run check` runs scripts/line-width.ts: biome's lineWidth holds code to 160 columns but breaks no string and
// no comment, so a long message or comment stays long unless something says so.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers/cli.ts";
import { tempDir } from "./helpers/repo.ts";

const WIDTH = (await Bun.file(join(ROOT, "biome.json")).json()).formatter.lineWidth as number;
const run = (dir: string) => {
  const p = Bun.spawnSync([process.execPath, join(ROOT, "scripts/line-width.ts"), dir], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
};

test("a line longer than biome's lineWidth is named with its file and line, and fails; one at the width passes", () => {
  const dir = tempDir("line-width-");
  mkdirSync(join(dir, "deep"));
  writeFileSync(join(dir, "ok.ts"), `// ${"x".repeat(WIDTH - 3)}\nconst a = "é${"é".repeat(WIDTH - 14)}";\n`);
  expect(run(dir)).toEqual({ code: 0, out: "", err: "" });
  writeFileSync(join(dir, "deep/long.ts"), `const a = 1;\n// ${"x".repeat(WIDTH - 2)}\n`);
  const r = run(dir);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`deep/long.ts:2: ${WIDTH + 1} characters\n`);
  expect(r.err.trim().split("\n")).toHaveLength(2); // the line, and what to do
});

test("src/ has no such line (generated files, which biome leaves alone, aside)", () => {
  expect(run("src")).toEqual({ code: 0, out: "", err: "" });
});
