/** Which worktree a command acts on: the one containing the current directory (docs/commands.md). */
import { basename } from "node:path";
import { GIT_MISSING, NOT_IN_WORKTREE, UserError } from "../errors.ts";
import { CommandError } from "../proc/command-error.ts";
import { findTop } from "./find-top.ts";

export interface Worktree {
  path: string;
  name: string;
}

let prefetched: { cwd: string; result: Promise<Worktree> } | null = null;

/**
 * Starts resolving the worktree while the command's modules load (start-up: the git call and the
 * loading overlap). The command's own resolveWorktree takes the result, error included.
 */
export function prefetchWorktree(cwd = process.cwd()): void {
  const result = lookUp(cwd);
  result.catch(() => {}); // reported when the command asks for it
  prefetched = { cwd, result };
}

export function resolveWorktree(cwd = process.cwd()): Promise<Worktree> {
  const p = prefetched;
  prefetched = null;
  return p?.cwd === cwd ? p.result : lookUp(cwd);
}

async function lookUp(cwd: string): Promise<Worktree> {
  // The plain case from the files; anything else (and every refusal) from git itself.
  const top = findTop(cwd);
  if (top !== null) return { path: top, name: basename(top) };
  let path: string;
  try {
    // Exactly as git prints it: a worktree named `proj ` is not its neighbour `proj`.
    // The process machinery is loaded only here: the plain case above needs none of it (start-up).
    const { exec } = await import("../proc/spawn.ts");
    path = (await exec(["git", "rev-parse", "--show-toplevel"], { cwd, timeoutMs: 30_000 })).stdout;
  } catch (err) {
    if (err instanceof CommandError && err.reason === "missing") throw new UserError(GIT_MISSING);
    // Not a repository, a bare repository, inside .git, or git missing: none is a worktree to work in.
    throw new UserError(NOT_IN_WORKTREE);
  }
  if (!path) throw new UserError(NOT_IN_WORKTREE);
  return { path, name: basename(path) };
}
