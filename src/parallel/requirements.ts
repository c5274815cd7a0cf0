/**
 * What `--parallel` above 1 needs (docs/parallel.md), refused before anything is written: each lane's work is
 * a branch put onto the loop's branch, so the loop needs a branch of its own (`--checkpoint branch`) and
 * stories to split (`--done tasks`). `--parallel 1` needs nothing: it is the loop as it always was.
 */
import { UserError } from "../errors.ts";

export interface ParallelAsked {
  parallel: number;
  checkpoint: "branch" | "stash";
  /** The done criteria as given (undefined: decided by the plan), or as the plan decided them. */
  done?: "tasks" | "manual";
}

/** `noTasksFile`: the plan fell back to manual criteria because no tasks.md was found (nothing was given). */
export function refuseParallelConflicts(o: ParallelAsked, noTasksFile = false): void {
  if (o.parallel <= 1) return;
  const flag = `--parallel ${o.parallel}`;
  if (o.checkpoint === "stash")
    throw new UserError(
      `${flag} needs branch checkpoints: each lane's work is a branch that is integrated onto the loop's branch, and --checkpoint stash makes no branch. ` +
        "Use --checkpoint branch (the default), or --parallel 1 to keep stash checkpoints and run the stories one after another.",
    );
  if (o.done !== "manual") return;
  if (noTasksFile)
    throw new UserError(
      `${flag} needs stories to run side by side, from a tasks.md with \`## \` sections and checkbox tasks, ` +
        `and none was found (worktree root, or depth ≤ 3). ` +
        "Add one, or use --parallel 1 with a task.",
    );
  throw new UserError(
    `${flag} needs --done tasks: with --done manual the loop has one task and no stories to split among lanes. ` +
      "Use --done tasks (the default when a tasks.md is found), or --parallel 1 with --done manual.",
  );
}
