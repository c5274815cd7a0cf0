/** The loop state of the current worktree, for the commands that only make sense once a loop has run. */
import { UserError } from "../../errors.ts";
import { loopPaths } from "../../state/paths.ts";
import { readState } from "../../state/store.ts";
import { resolveWorktree } from "../../worktree/worktree.ts";
import { printJson } from "../../term/print.ts";

/**
 * With `json`, "no loop" is also printed on stdout as a JSON object (`{"loop": null, …}`), so a
 * script reads one format whatever happened; the exit code is 1 either way.
 */
export async function requireState(opts: { json?: boolean } = {}) {
  const wt = await resolveWorktree();
  const path = loopPaths(wt.path).state;
  const state = await readState(path);
  if (!state) {
    const message = `No loop has run in ${wt.name} yet (no ${path}). Start one with \`wt-loop start\`.`;
    if (opts.json) printJson({ loop: null, worktree_path: wt.path, state_file: path, message });
    throw new UserError(message);
  }
  return { wt, path, state };
}
