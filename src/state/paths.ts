/** Where the loop keeps its files (docs/files.md): under `<worktree>/.claude/`, the lock aside. */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { LOOP_DIR, refuseLinks } from "../proc/safe-fs.ts";

/** The names of the loop's files in its folder: spelled here only (the paths below, git's exclude lines). */
export const LOOP_FILES = {
  state: "loop-state.json",
  events: "loop-events.jsonl",
  logs: "logs",
  runs: "loop-runs",
  requests: "loop-requests",
  /** The lock's place when the worktree has no `.git` of its own (lockPath). */
  lock: "loop.lock",
  learnings: "learnings.md",
} as const;

export function loopPaths(worktree: string) {
  const dir = join(worktree, LOOP_DIR);
  return {
    dir,
    state: join(dir, LOOP_FILES.state),
    events: join(dir, LOOP_FILES.events),
    logs: join(dir, LOOP_FILES.logs),
    runs: join(dir, LOOP_FILES.runs),
    /** `wt-loop pause|resume|note|max` requests and the runner's answers (control/steer.ts). */
    requests: join(dir, LOOP_FILES.requests),
    /** Asked when used (it reads `.git`): most readers never need it. */
    get lock() {
      return lockPath(worktree);
    },
    learnings: join(dir, LOOP_FILES.learnings),
  };
}

/** The lock's name in the worktree's git folder (lockPath). */
const GIT_DIR_LOCK = "wt-loop.lock";

/**
 * The runner's lock lives in the worktree's own git folder (`.git/`, or `.git/worktrees/<name>/` for a
 * linked worktree), not in `.claude/`: git ignores `.claude/`, so an agent's `git clean -fdx` deleted a
 * lock there and let a second runner in while it still worked; nothing done with git deletes a file
 * in the git folder. Without a `.git` at the worktree's top (GIT_DIR elsewhere), `.claude/` it is.
 */
export function lockPath(worktree: string): string {
  const dotGit = join(worktree, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return join(dotGit, GIT_DIR_LOCK);
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
    if (gitdir) return join(resolve(worktree, gitdir), GIT_DIR_LOCK);
  } catch {
    // no .git here
  }
  return join(worktree, LOOP_DIR, LOOP_FILES.lock);
}
/**
 * Refuses (LinkRefused, a UserError) a link anywhere on the way to a file the loop writes: a
 * repository can commit them, an agent can plant them. Checked before anything is written, and again
 * after each agent run with that run's log folder (`more`).
 */
export function refusePlantedLinks(worktree: string, more: string[] = []): void {
  const p = loopPaths(worktree);
  for (const path of [p.state, p.events, p.logs, p.runs, p.requests, p.learnings, join(p.dir, LOOP_FILES.lock), ...more]) refuseLinks(worktree, path);
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

const F = LOOP_FILES;
/** Lines added to the repository's info/exclude: no checkpoint commits, stashes or cleans these (`.*.tmp`: a write's temp file). */
export const EXCLUDE_LINES = [F.state, `${F.state}.*.tmp`, F.events, `${F.logs}/`, `${F.runs}/`, `${F.requests}/`, F.lock, `${F.lock}.*`, F.learnings].map(
  (name) => `/${LOOP_DIR}/${name}`,
);
