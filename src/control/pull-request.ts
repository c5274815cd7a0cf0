/**
 * `wt-loop pr` (docs/github.md): the pull request of a loop that has ended — opened, or the one it already has
 * updated. What is pushed and written is github/pull-request.ts; this is the part around it: the loop must have
 * ended (a running loop's `--on-complete pr` does it at its end), no runner may start meanwhile (the lock), and
 * the state names the pull request as soon as it exists, so a later run updates that one.
 */
import { Git } from "../checkpoint/git.ts";
import { UserError } from "../errors.ts";
import { publishPr } from "../github/pull-request.ts";
import { loopPaths } from "../state/paths.ts";
import { acquireLock } from "../state/lock.ts";
import { isFinal } from "../state/schema.ts";
import { readState, writeState } from "../state/store.ts";
import { correctDeadRunner } from "./liveness.ts";

export interface PrOptions {
  commandTimeoutSec?: number;
  env?: Record<string, string | undefined>;
  /** Told when GitHub's rate limit makes it wait, and until when. */
  onWait?: (until: number, reason: string) => void;
}

/** Opens or updates the pull request of the loop that ran in `worktree`; returns what was done, in words. */
export async function pullRequestOfLoop(worktree: string, o: PrOptions = {}): Promise<string> {
  const paths = loopPaths(worktree);
  const state = await readState(paths.state);
  if (!state)
    throw new UserError(`No loop has run here yet (no ${paths.state}): there is nothing to open a pull request from. Start one with \`wt-loop start\`.`);
  await correctDeadRunner(paths.state, state);
  if (!isFinal(state.status))
    throw new UserError(
      `The loop in ${state.worktree_name} has not ended (status: ${state.status}). ` +
        `Run \`wt-loop pr\` once it has, or start it with \`--on-complete pr\` to open the pull request at its end.`,
    );
  if (state.completing === "cleanup" || state.completion === "cleanup")
    throw new UserError(
      `The loop in ${state.worktree_name} ended with a cleanup: its work is no longer on a branch of its own, ` +
        `so there is no branch to open a pull request from.`,
    );
  const held = acquireLock(paths.lock, state.started_at, worktree);
  if (!("lock" in held))
    throw new UserError(
      `A loop is starting or running in ${state.worktree_name} (runner pid ${held.holder?.pid ?? "unknown"}): run \`wt-loop pr\` once it has ended.`,
    );
  try {
    const git = new Git({ cwd: worktree, timeoutMs: (o.commandTimeoutSec ?? state.command_timeout_sec) * 1000 });
    const ctx = { cwd: worktree, timeoutMs: (o.commandTimeoutSec ?? state.command_timeout_sec) * 1000, env: o.env };
    const done = await publishPr(
      git,
      ctx,
      state,
      async (pr) => {
        // Only the pull request's record changes: the rest of the state is the loop's, as its runner left it.
        const now = (await readState(paths.state)) ?? state;
        await writeState(paths.state, { ...now, pull_request: pr });
      },
      { onWait: o.onWait },
    );
    return done.message;
  } finally {
    held.lock.release();
  }
}
