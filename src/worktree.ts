/** Which worktree a command acts on: the one containing the current directory (SPEC §2). */
import { basename } from "node:path";
import { NOT_IN_WORKTREE, UserError } from "./errors.ts";
import { CommandError, exec } from "./proc/spawn.ts";

export interface Worktree {
  path: string;
  name: string;
}

export async function resolveWorktree(cwd = process.cwd()): Promise<Worktree> {
  let path: string;
  try {
    // Exactly as git prints it: a worktree named `proj ` is not its neighbour `proj`.
    path = (await exec(["git", "rev-parse", "--show-toplevel"], { cwd, timeoutMs: 30_000 })).stdout;
  } catch (err) {
    if (err instanceof CommandError && err.reason === "missing")
      throw new UserError("git is not installed (not found on PATH). Install git, then run this again.");
    // Not a repository, a bare repository, inside .git, or git missing: none is a worktree to work in.
    throw new UserError(NOT_IN_WORKTREE);
  }
  if (!path) throw new UserError(NOT_IN_WORKTREE);
  return { path, name: basename(path) };
}
