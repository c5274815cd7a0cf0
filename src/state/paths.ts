/** Where the loop keeps its files (SPEC §3), all under `<worktree>/.claude/`. */
import { join } from "node:path";

export function loopPaths(worktree: string) {
  const dir = join(worktree, ".claude");
  return {
    dir,
    state: join(dir, "loop-state.json"),
    events: join(dir, "loop-events.jsonl"),
    logs: join(dir, "logs"),
    runs: join(dir, "loop-runs"),
    learnings: join(dir, "learnings.md"),
    iterLog: (n: number) => join(dir, "logs", `iter-${String(n).padStart(3, "0")}.jsonl`),
  };
}
/** A run's key, unique per worktree and usable in file names: its `started_at` without colons. */
export const runKey = (startedAt: string) => startedAt.replace(/:/g, "-");

export type LoopPaths = ReturnType<typeof loopPaths>;

/** Lines added to the repository's info/exclude: no checkpoint commits, stashes or cleans these. */
export const EXCLUDE_LINES = [
  "/.claude/loop-state.json",
  "/.claude/loop-state.json.*.tmp",
  "/.claude/loop-events.jsonl",
  "/.claude/logs/",
  "/.claude/loop-runs/",
  "/.claude/learnings.md",
];
