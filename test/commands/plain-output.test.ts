/**
 * The read-only commands print with console.log and never create `process.stdout`: creating that stream
 * costs more than a millisecond of every start-up (docs/performance.md "Start-up"), and console.log ends
 * quietly on a closed pipe by itself (test/e2e/piping-into-head-ends-quietly.test.ts). A preload makes
 * reading `process.stdout` throw, so a command (or cli.ts's EPIPE guard) that touches it fails here.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { tempDir } from "../helpers/repo.ts";
import { repoWithLoop } from "../helpers/state.ts";

function trap(): string {
  const path = join(tempDir(), "no-stdout.ts");
  writeFileSync(path, `Object.defineProperty(process, "stdout", { configurable: true, get() { throw new Error("process.stdout was created"); } });\n`);
  return path;
}


test.each([
  ["status", "repo"],
  ["status --json", "repo"],
  ["history", "tests fail"],
  ["history --json", "tests fail"],
  ["list", "repo"],
  ["list --json", "repo"],
])("`wt-loop %s` prints without creating process.stdout", (cmd, shown) => {
  const repo = repoWithLoop();
  const r = Bun.spawnSync([process.execPath, "--preload", trap(), CLI, ...cmd.split(" ")], { cwd: repo, env: baseEnv(), stdout: "pipe", stderr: "pipe" });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(r.stdout.toString()).toContain(shown);
});

test("the trap catches a command that creates process.stdout (the checks above are not vacuous)", () => {
  const r = Bun.spawnSync([process.execPath, "--preload", trap(), "-e", "process.stdout.write('x')"], { env: baseEnv(), stderr: "pipe" });
  expect(r.exitCode).not.toBe(0);
  expect(r.stderr.toString()).toContain("process.stdout was created");
});
