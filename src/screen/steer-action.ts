/** The loop screen's steering keys (p, +/-, n) through control/steer.ts, as `wt-loop pause|resume|max|note`: the sentence to show. */
import { errorMessage, UserError } from "../errors.ts";
import { addNote, changeMaxIterations, pauseLoop, resumeLoop } from "../control/steer.ts";
import { loopPaths } from "../state/paths.ts";
import type { Action } from "./frame.ts";

export async function steerAction(worktree: string, a: Extract<Action, { kind: "pause" | "resume" | "max" | "note" }>): Promise<string> {
  const paths = loopPaths(worktree);
  try {
    switch (a.kind) {
      case "pause":
        return await pauseLoop(paths);
      case "resume":
        return await resumeLoop(paths);
      case "max":
        return await changeMaxIterations(paths, a.delta);
      case "note":
        return await addNote(paths, a.text);
    }
  } catch (err) {
    // A refusal (the loop ended, the runner did not answer) is said on the screen, never thrown at it.
    return err instanceof UserError ? err.message : `The request could not be made: ${errorMessage(err)}`;
  }
}
