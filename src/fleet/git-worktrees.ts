/**
 * The repository's worktrees, from one `git worktree list`: what `list`, the MCP server and the
 * selection screen start from. Its own module so that `list` can start the git call at once, while
 * its other modules load (start-up, docs/performance.md): the call and the loading overlap.
 */
import { NOT_IN_WORKTREE, UserError } from "../errors.ts";
import { CommandError, exec } from "../proc/spawn.ts";
import { acrossWorktrees, parseWorktreeList, type ListedWorktree } from "../checkpoint/worktree-list.ts";

export interface GitWorktree {
  path: string;
  head: string | null;
  branch: string | null;
}

let prefetched: { cwd: string; result: Promise<GitWorktree[]> } | null = null;

/**
 * Starts `git worktree list` for `cwd` now; the next gitWorktrees(cwd) takes its answer, error included.
 * `fromFiles` (worktree/worktree-files.ts, passed by `list`'s prefetch) answers the plain case from git's
 * files at once, without the process; null from it, and git is asked.
 */
export function prefetchGitWorktrees(cwd = process.cwd(), fromFiles?: (cwd: string) => ListedWorktree[] | null): void {
  const listed = fromFiles?.(cwd);
  const result = listed ? Promise.resolve(worktreesOf(listed)) : lookUp(cwd, 30_000);
  result.catch(() => {}); // reported when the command asks for it
  prefetched = { cwd, result };
}

/** The repository's worktrees, from one `git worktree list --porcelain -z` (bare entries left out). */
export function gitWorktrees(cwd: string, timeoutMs = 30_000): Promise<GitWorktree[]> {
  const p = prefetched;
  prefetched = null;
  return p?.cwd === cwd ? p.result : lookUp(cwd, timeoutMs);
}

async function lookUp(cwd: string, timeoutMs: number): Promise<GitWorktree[]> {
  let out: string;
  try {
    out = (await acrossWorktrees(() => exec(["git", "worktree", "list", "--porcelain", "-z"], { cwd, timeoutMs }), timeoutMs)).stdout;
  } catch (err) {
    if (err instanceof CommandError && err.reason === "missing")
      throw new UserError("git is not installed (not found on PATH). Install git, then run this again.");
    throw new UserError(NOT_IN_WORKTREE);
  }
  return worktreesOf(parseWorktreeList(out));
}

const worktreesOf = (listed: ListedWorktree[]): GitWorktree[] =>
  listed.filter((w) => !w.bare).map((w) => ({ path: w.path, head: w.head, branch: w.branch?.replace(/^refs\/heads\//, "") ?? null }));
