/** The loop state of the current worktree, for the commands that only make sense once a loop has run. */
import { UserError } from "../errors.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree.ts";

export async function requireState() {
  const wt = await resolveWorktree();
  const path = loopPaths(wt.path).state;
  const state = await readState(path);
  if (!state) throw new UserError(`No loop has run in ${wt.name} yet (no ${path}). Start one with \`wt-loop start\`.`);
  return { wt, path, state };
}
