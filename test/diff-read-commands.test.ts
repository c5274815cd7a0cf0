// The differential checker of the read-only commands (scripts/diff-read-commands.ts) is only worth its
// silence if it speaks: two copies of one binary must show no difference (each copy's own runner, its
// pid and its path included), and a wrapper that changes one byte of stdout must be caught, with the case kept;
// neither leaves a process behind.
import { beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, ROOT } from "./helpers/cli.ts";
import { tempDir } from "./helpers/repo.ts";

let bin = "";
let copy = "";
beforeAll(() => {
  const dir = tempDir("wt-loop-bin-");
  bin = buildBinary(dir);
  copy = join(dir, "wt-loop-copy");
  copyFileSync(bin, copy);
}, 120_000);

// A running loop with this binary's own runner alive, a dead one's, a seed-format state, and a random case.
const SOME = ["--seed", "7", "--cases", "1", "--only", "running-own-runner|running-dead-runner|seed-format-2|r001"];

/** Processes whose command line names `dir`: the runners and the sleeper the checker started there must be gone. */
function leftIn(dir: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        return "";
      }
    })
    .filter((line) => line.includes(dir));
}

function check(a: string, b: string) {
  const work = tempDir("wt-loop-diff-test-");
  const r = Bun.spawnSync(["bun", join(ROOT, "scripts/diff-read-commands.ts"), a, b, ...SOME, "--work", work], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString(), left: leftIn(work) };
}

test("two copies of the same binary differ in nothing", () => {
  const r = check(bin, copy);
  expect(r.out).toContain("seed 7: 4 cases");
  expect(r.out).not.toContain("DIFFERENCE");
  expect(r.out).toContain("no difference");
  expect(r.code).toBe(0);
  expect(r.left).toEqual([]);
}, 180_000);

test("a binary whose stdout differs by one byte is caught, and the case that showed it is kept", () => {
  const wrapper = join(tempDir("wt-loop-wrapper-"), "wt-loop");
  // The first "o" of stdout becomes "0"; the exit code is the binary's own (pipefail).
  writeFileSync(wrapper, `#!/bin/bash\nset -o pipefail\n"${bin}" "$@" | sed '0,/o/s//0/'\n`, { mode: 0o755 });
  const r = check(bin, wrapper);
  expect(r.code).toBe(1);
  expect(r.out).toContain("DIFFERENCE in e");
  expect(r.out).toMatch(/stdout: line \d+ .*\n\s+baseline : ".*o.*"\n\s+candidate: ".*0.*"/);
  const kept = /case: +(\S+)/.exec(r.out)?.[1];
  expect(kept && existsSync(kept)).toBe(true);
  // The wrapper's runner is a shell with the binary under it: both end with the checker.
  expect(r.left).toEqual([]);
}, 180_000);
