/**
 * The order of the binary's bytecode (compile.ts `bytecodeOrder`): a first build is run, with Bun's
 * BUN_BYTECODE_ORDER_OUT, on the commands run most — `status`, `status --json`, `history`, `list` — in a
 * scratch repository holding a finished loop's state; the final build then lays out together, at the front,
 * the functions those runs used, so a start-up touches fewer pages of the binary (~110 page faults fewer
 * for `status`, ~45 for `--version`; docs/performance.md). The profile names functions by their code, so
 * the host's applies to every target's build of the same sources.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleIteration, sampleState } from "../../test/helpers/state.ts";

/** The commands profiled, the most common first (Bun gives the first file's functions the front). */
export const PROFILED = [["status"], ["status", "--json"], ["history"], ["list"]];

/** A scratch folder for the profiles and their repository; the caller removes it. */
export const scratch = () => mkdtempSync(join(tmpdir(), "wt-loop-bytecode-order-"));

/**
 * Runs `binary` on each profiled command in a repository under `dir` and returns the profiles it wrote.
 * Throws when a command fails: a profile of an error path would lay out the wrong functions.
 */
export function recordBytecodeOrder(binary: string, dir: string): string[] {
  const repo = join(dir, "repo");
  mkdirSync(join(repo, ".claude"), { recursive: true });
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", ...args], { cwd: repo, stdout: "ignore", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q", "-b", "main");
  git("-c", "user.name=wt-loop", "-c", "user.email=build@wt-loop", "commit", "-q", "--allow-empty", "-m", "profile");
  const iterations = Array.from({ length: 30 }, (_, i) => sampleIteration(i + 1, { log_file: join(repo, `.claude/logs/iter-${i + 1}.jsonl`) }));
  const state = sampleState({ worktree_path: repo, worktree_name: "repo", tasks_file: join(repo, "tasks.md"), current_iteration: 30, iterations });
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state, null, 2));
  writeFileSync(join(repo, "tasks.md"), "## 1. Setup\n- [x] 1.1 Setup\n## 2. Second\n- [x] 2.1 Second\n");
  return PROFILED.map((argv, i) => {
    const profile = join(dir, `order-${i}.txt`);
    const env = { ...process.env, BUN_BYTECODE_ORDER_OUT: profile, NO_COLOR: "1" };
    const r = Bun.spawnSync([binary, ...argv], { cwd: repo, env, stdout: "ignore", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`recording the bytecode order: wt-loop ${argv.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
    return profile;
  });
}
