/**
 * `wt-loop start`: prepare the loop from the flags (continuing the last run where it may), then run it here
 * (`--terminal inline`) or in a new window, whose `wt-loop run` takes the lock over (run/launch.ts).
 */
import { previousRun } from "../control/liveness.ts";
import { prepareFromFlags, refuseUnusableLoopFolder } from "../setup/from-flags.ts";
import { writeStarting } from "../setup/prepare.ts";
import { loopPaths } from "../state/paths.ts";
import { print, warn } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { openLoopWindow, runInline } from "./launch.ts";

/** The exit code: the loop's when it ran here, else the launch's. `given`: the flags, validated already. */
export async function prepareAndStart(given: Record<string, unknown>, shown: { plain: boolean }): Promise<number> {
  const wt = await resolveWorktree();
  if (given.dryRun !== true) await refuseUnusableLoopFolder(wt, "start");
  // A runner that died (kill -9) is recorded stopped first, as `status` would: its loop is then continued.
  const previous = await previousRun(loopPaths(wt.path).state, given.dryRun === true, warn);
  // Flags over the remembered run (a plain start after stuck/stalled/stopped) over the config files.
  const planned = await prepareFromFlags(wt, given, previous, "start");
  if (typeof planned === "number") return planned;
  const { prepared, opts } = planned;
  if (opts.terminal === "inline") {
    const { note, lock } = await writeStarting(prepared, "here");
    if (note) print(note);
    return runInline(prepared.state, prepared.source, lock, shown);
  }
  return openLoopWindow(prepared, shown);
}
