/**
 * The engine's side of the checkpoint contract: a failure in a checkpoint step is the harness's
 * (HarnessError: never a revert, clean or drop; the loop ends and says where the work is), and what
 * the strategy holds is copied into the state before anything can touch the tree.
 */
import type { Checkpoint } from "../checkpoint/strategy.ts";
import { errorMessage, HarnessError, UserError } from "../errors.ts";
import { CommandError } from "../proc/spawn.ts";
import type { State } from "../state/schema.ts";

/** A checkpoint step outside an attempt (the initial checkpoint, a revert): its failures are the harness's. */
export async function harnessStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UserError || (err instanceof CommandError && err.reason === "aborted")) throw err; // a refusal, or the stop
    throw new HarnessError(`wt-loop failed while ${what}: ${errorMessage(err)}`, { cause: err });
  }
}

export function rescue(checkpoint: Checkpoint): string {
  try {
    return checkpoint.rescue();
  } catch {
    return "The working tree was not changed by wt-loop: your work is in it.";
  }
}

/** Copies what the strategy holds (its stashes, the user's index) into the state, once it has started. */
export function recordCheckpoint(state: State, checkpoint: Checkpoint) {
  let info;
  try {
    info = checkpoint.info();
  } catch {
    return; // not started yet
  }
  if (!info) return;
  state.checkpoint_stashes = [...info.stashes];
  state.index_tree = info.indexTree;
}
