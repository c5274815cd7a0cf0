/**
 * `start --pr N` at start-up (docs/github.md): the pull request's feedback read (github/pr-feedback.ts) and
 * appended to the tasks file of the loop that ran here, before the plan reads it. Everything is checked first
 * — the loop's tasks file, the pull request open and on this worktree's branch, its checks finished — so a
 * refusal writes nothing; with --dry-run the stories are shown and not written.
 */
import { relative } from "node:path";
import { Git } from "../checkpoint/git.ts";
import { UserError } from "../errors.ts";
import { resolveRepo } from "../github/issues.ts";
import { outwaitingRateLimit, startupWait } from "../github/rate-wait.ts";
import { appendFeedback, readFeedback } from "../github/pr-feedback.ts";
import type { State } from "../state/schema.ts";
import type { LoopOptions } from "./options.ts";

export async function takePrFeedback(worktree: string, opts: LoopOptions, previous: State | null, warn: (message: string) => void): Promise<void> {
  const n = opts.pr!;
  const tasksFile = previous?.tasks_file;
  if (!tasksFile || previous.done_criteria !== "tasks")
    throw new UserError(
      `--pr ${n} adds the pull request's feedback as stories to the tasks file of the loop that made it: ` +
        `run it in that loop's worktree (no loop with a tasks file has run here).`,
    );
  const ctx = { cwd: worktree, timeoutMs: opts.commandTimeout * 1000 };
  const repo = await resolveRepo(ctx, null);
  const branch = await new Git(ctx).branch();
  const scale = Number(process.env.WT_LOOP_WAIT_SCALE) > 0 ? Number(process.env.WT_LOOP_WAIT_SCALE) : 1;
  const feedback = await outwaitingRateLimit(ctx, opts.maxWait, `run \`wt-loop start --pr ${n}\` again`, startupWait(warn), () =>
    readFeedback(ctx, repo, n, branch, {
      maxWaitMs: opts.maxWait * 3_600_000,
      scale,
      onWait: (names) => warn(`Waiting for the checks of pull request #${n} still running: ${names.join(", ")}.`),
    }),
  );
  const note = appendFeedback(tasksFile, relative(worktree, tasksFile), feedback, !opts.dryRun);
  if (!note) throw new UserError(`Pull request #${n} has no failing check and no review asking for changes: there is nothing to add.`, 0);
  warn(note);
}
