/**
 * The repository's worktrees, from one `git worktree list`: what `list`, the MCP server and the
 * selection screen start from. Its own module so that `list` can start the git call at once, while
 * its other modules load (start-up, docs/performance.md): the call and the loading overlap.
 */
import { GIT_MISSING, NOT_IN_WORKTREE, UserError } from "../errors.ts";
import { CommandError, exec } from "../proc/spawn.ts";
import { acrossWorktrees, halfAddedFolder, parseWorktreeList, type ListedWorktree } from "../checkpoint/worktree-list.ts";

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
    out = (await acrossWorktrees(() => exec(["git", "worktree", "list", "--porcelain", "-z"], { cwd, timeoutMs }), timeoutMs, cwd)).stdout;
  } catch (err) {
    if (err instanceof CommandError && err.reason === "missing") throw new UserError(GIT_MISSING);
    const folder = halfAddedFolder(err, cwd);
    if (folder) throw new UserError(halfWritten(folder));
    throw new UserError(NOT_IN_WORKTREE);
  }
  return worktreesOf(parseWorktreeList(out));
}

/**
 * git 2.39 lists no worktree while one admin folder is half written, and takes none of its own ways out: the
 * folder is locked "initializing", so `git worktree prune` keeps it and `git worktree unlock` dies reading it too.
 * Removing the folder is what works (then git lists the others again).
 */
const halfWritten = (folder: string) =>
  `git cannot list this repository's worktrees: ${folder} is half written (still so after waiting; a \`git worktree add\` cut midway leaves it so). ` +
  `If no add is running, remove it: rm -rf '${folder.replace(/'/g, `'\\''`)}' — then run this again.`;

const worktreesOf = (listed: ListedWorktree[]): GitWorktree[] =>
  listed.filter((w) => !w.bare).map((w) => ({ path: w.path, head: w.head, branch: w.branch?.replace(/^refs\/heads\//, "") ?? null }));
