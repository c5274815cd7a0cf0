/** Where the loop keeps its files (docs/files.md): under `<worktree>/.claude/`, the lock aside. */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { refuseLinks } from "../proc/safe-fs.ts";

export function loopPaths(worktree: string) {
  const dir = join(worktree, ".claude");
  return {
    dir,
    state: join(dir, "loop-state.json"),
    events: join(dir, "loop-events.jsonl"),
    logs: join(dir, "logs"),
    runs: join(dir, "loop-runs"),
    /** `wt-loop pause|resume|note|max` requests and the runner's answers (control/steer.ts). */
    requests: join(dir, "loop-requests"),
    /** Asked when used (it reads `.git`): most readers never need it. */
    get lock() {
      return lockPath(worktree);
    },
    learnings: join(dir, "learnings.md"),
  };
}

/**
 * The runner's lock lives in the worktree's own git folder (`.git/`, or `.git/worktrees/<name>/` for a
 * linked worktree), not in `.claude/`: git ignores `.claude/`, so an agent's `git clean -fdx` deleted a
 * lock there and let a second runner in while it still worked; nothing done with git deletes a file
 * in the git folder. Without a `.git` at the worktree's top (GIT_DIR elsewhere), `.claude/` it is.
 */
export function lockPath(worktree: string): string {
  const dotGit = join(worktree, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return join(dotGit, "wt-loop.lock");
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
    if (gitdir) return join(resolve(worktree, gitdir), "wt-loop.lock");
  } catch {
    // no .git here
  }
  return join(worktree, ".claude", "loop.lock");
}
/**
 * Refuses (LinkRefused, a UserError) a link anywhere on the way to a file the loop writes: a
 * repository can commit them, an agent can plant them. Checked before anything is written, and again
 * after each agent run with that run's log folder (`more`).
 */
export function refusePlantedLinks(worktree: string, more: string[] = []): void {
  const p = loopPaths(worktree);
  for (const path of [p.state, p.events, p.logs, p.runs, p.requests, p.learnings, join(p.dir, "loop.lock"), ...more]) refuseLinks(worktree, path);
  const lock = p.lock;
  if (dirname(lock) !== p.dir) refuseLinks(dirname(lock), lock);
}

/** A run's key, unique per worktree and usable in file names: its `started_at` without colons. */
export const runKey = (startedAt: string) => startedAt.replace(/:/g, "-");

/**
 * The files of one run (`started_at`): its own iteration logs, created fresh, and where its record
 * goes when the next run replaces it. Other code (history, `wt-loop log`) finds a run's files here.
 */
export function runFiles(paths: { logs: string; runs: string }, startedAt: string) {
  const key = runKey(startedAt);
  const logs = join(paths.logs, key);
  return {
    logs,
    iterLog: (n: number) => join(logs, `iter-${String(n).padStart(3, "0")}.jsonl`),
    promptFile: (n: number) => promptFileOf(join(logs, `iter-${String(n).padStart(3, "0")}.jsonl`)),
    archivedState: join(paths.runs, `${key}.json`),
    archivedEvents: join(paths.runs, `${key}.events.jsonl`),
  };
}

/** Where an iteration's prompt is kept, beside its log: `iter-NNN.prompt.md`. */
export const promptFileOf = (iterLog: string) => iterLog.replace(/\.jsonl$/, "") + ".prompt.md";

/** Where an attempt's diff is kept, beside its log: `iter-NNN.diff` (written once its work is kept, or before it is reverted). */
export const diffFileOf = (iterLog: string) => iterLog.replace(/\.jsonl$/, "") + ".diff";

/** The loop's files with those of the run that started at `startedAt` (what the engine writes). */
export function runPaths(worktree: string, startedAt: string) {
  const base = loopPaths(worktree);
  return { ...base, iterLog: runFiles(base, startedAt).iterLog };
}

export type LoopPaths = ReturnType<typeof runPaths>;
export type LoopFiles = ReturnType<typeof loopPaths>;

/** Lines added to the repository's info/exclude: no checkpoint commits, stashes or cleans these. */
export const EXCLUDE_LINES = [
  "/.claude/loop-state.json",
  "/.claude/loop-state.json.*.tmp",
  "/.claude/loop-events.jsonl",
  "/.claude/logs/",
  "/.claude/loop-runs/",
  "/.claude/loop-requests/",
  "/.claude/loop.lock",
  "/.claude/loop.lock.*",
  "/.claude/learnings.md",
];
