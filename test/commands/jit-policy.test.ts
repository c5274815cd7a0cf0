/**
 * The compiled binary starts with JavaScriptCore's JIT reluctant (scripts/release/compile.ts `jitPolicy`): a
 * command that prints and ends runs its code a few hundred times at most, and compiling it on the way cost
 * `status` and `history` milliseconds (docs/performance.md "Start-up"). Every command that runs on — the loop,
 * the screens, the MCP server — sets the normal policy back before it starts; the quick ones keep it. A
 * preload reports each setJITPolicy call on stderr.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { tempDir } from "../helpers/repo.ts";
import { repoWithLoop } from "../helpers/state.ts";

function reporter(): string {
  const path = join(tempDir(), "report-jit-policy.ts");
  writeFileSync(path, `const set = Bun.unsafe.setJITPolicy;\nBun.unsafe.setJITPolicy = (s) => { console.error("jit-policy " + s); set(s); };\n`);
  return path;
}


function policyCalls(repo: string, argv: string[]): string[] {
  const r = Bun.spawnSync([process.execPath, "--preload", reporter(), CLI, ...argv], {
    cwd: repo,
    env: baseEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return r.stderr
    .toString()
    .split("\n")
    .filter((l) => l.startsWith("jit-policy"));
}

test.each(["status", "status --json", "history", "list", "log", "--version", "--help", "help status"])("`wt-loop %s` keeps the start-up JIT policy", (cmd) => {
  expect(policyCalls(repoWithLoop(), cmd.split(" "))).toEqual([]);
});

test.each(["run --dry-run", "stop", "doctor --json", "mcp"])("`wt-loop %s` sets the normal JIT policy back", (cmd) => {
  expect(policyCalls(repoWithLoop(), cmd.split(" "))).toEqual(["jit-policy 1"]);
});
