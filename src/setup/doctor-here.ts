/**
 * What `wt-loop doctor` checks: the options a `start` here with the same flags would use (its agent, its terminal),
 * read as start reads them, and the options' own mistakes said first (exit 1), as start says them.
 */
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree, type Worktree } from "../worktree/worktree.ts";
import { layerOptions, withOrigins } from "./config.ts";
import type { DoctorInput } from "./doctor.ts";
import { refuseOptionMistakes } from "./option-mistakes.ts";
import { LoopOptions } from "./options.ts";
import { validate } from "./validate.ts";

/** The doctor's input for the flags `given`; outside a worktree, the flags alone (the checks say why there is none). */
export async function doctorHere(given: Record<string, unknown>): Promise<DoctorInput> {
  validate(LoopOptions, given); // a mistyped flag is named first, as start does
  const worktree: Worktree | { error: string } = await resolveWorktree().catch((err: Error) => ({ error: err.message }));
  const input: DoctorInput = { purpose: "doctor", cwd: process.cwd(), env: process.env, worktree, opts: null, layered: null, previous: null };
  if ("error" in worktree) input.opts = validate(LoopOptions, given);
  else {
    // An unreadable state is start's to report; the checks here do not depend on it.
    input.previous = await readState(loopPaths(worktree.path).state).catch(() => null);
    input.layered = layerOptions(worktree.path, given, input.previous);
    input.opts = validate(LoopOptions, input.layered.options);
  }
  try {
    refuseOptionMistakes(input.opts);
  } catch (err) {
    throw input.layered ? withOrigins(err, input.layered) : err;
  }
  return input;
}
