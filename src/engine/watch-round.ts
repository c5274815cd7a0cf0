/**
 * `--watch` (docs/github.md): once every story is done, the loop pushes its branch and opens or updates its pull
 * request, then waits for the checks of what it pushed. Failing checks and requested changes come back as stories
 * (the loop goes on with them: the same branch, --max and the budgets as always), and the next time every story is
 * done it pushes and waits again. Checks that pass with nothing asked end it `done`; so does a pull request closed
 * or merged meanwhile (said); a stop ends the wait, `stopped`. At most WATCH_ROUNDS rounds of feedback per run.
 */
import { errorMessage, thenSentence } from "../errors.ts";
import { GitHubWaitStopped } from "../github/rate-wait.ts";
import { clockTime } from "../text/format.ts";
import { windowTitle } from "../text/window-title.ts";
import type { Ending } from "./finish.ts";
import { harnessStep } from "./harness.ts";
import type { LoopDeps } from "./ports.ts";
import type { State } from "../state/schema.ts";

/** Rounds of feedback taken in by one run: a reviewer and the agent going back and forth end here. */
export const WATCH_ROUNDS = 5;

/**
 * Called when every story is done (`done`: the ending it would be). Null: not watching. `more`: feedback was added
 * as stories, go on. Else the ending, with what the watch found.
 */
export async function watchRound(state: State, deps: LoopDeps, done: Ending, rounds: number): Promise<Ending | "more" | null> {
  if (!state.watch || !deps.publish || !deps.watchPr) return null;
  try {
    await deps.publish(state, async (pr) => {
      state.pull_request = pr;
      await deps.store.save();
    });
  } catch (err) {
    if (err instanceof GitHubWaitStopped) return { status: "stopped", reason: `Stopped by the user while the pull request was made: ${err.message}` };
    // The end of the loop tries again and says why it could not (`wt-loop pr` after it).
    return { ...done, reason: thenSentence(done.reason, "Not watched: the branch could not be pushed or its pull request made.") };
  }
  const pr = state.pull_request!;
  const since = Date.now();
  const until = since + state.max_wait_hours * 3_600_000;
  let said: string | null = null;
  let verdict: Awaited<ReturnType<NonNullable<LoopDeps["watchPr"]>>>;
  try {
    verdict = await deps.watchPr(state, {
      take: rounds < WATCH_ROUNDS,
      async onWait(checks) {
        // Said when what is waited for changes, not at every poll.
        if (said === checks.join("\n")) return;
        said = checks.join("\n");
        const what = checks.length ? `pull request #${pr.number}'s checks ${checks.join(", ")}` : `pull request #${pr.number}'s checks to begin`;
        state.waiting = { on: "pull_request", reason: what, since: new Date(since).toISOString(), until: new Date(until).toISOString() };
        deps.store.emit({ type: "Watching", pull_request: pr.number, url: pr.url, checks, since: state.waiting.since, until: state.waiting.until });
        deps.setTitle(windowTitle(state.worktree_name, `watching #${pr.number} until ${clockTime(until, since)}`));
        await deps.store.write();
      },
    });
  } catch (err) {
    if (err instanceof GitHubWaitStopped || deps.signal.aborted)
      return { status: "stopped", reason: `Stopped by the user while watching pull request #${pr.number} (${pr.url}); every story was done and pushed.` };
    return { ...done, reason: thenSentence(done.reason, `Watching pull request #${pr.number} ended: ${errorMessage(err)}`) };
  } finally {
    if (state.waiting?.on === "pull_request") {
      state.waiting = null;
      await deps.store.write();
    }
  }
  switch (verdict.kind) {
    case "stories":
      // Kept as the new checkpoint at once (as the audit's gaps are): a failed attempt at these stories is reverted to it.
      await harnessStep("keeping the pull request's feedback as stories", async () =>
        deps.checkpoint.accept(`wt-loop: pull request #${pr.number}'s feedback as stories`, await deps.checkpoint.changes()),
      );
      deps.store.emit({ type: "Feedback", pull_request: pr.number, note: verdict.note });
      await deps.store.save();
      return "more";
    case "feedback":
      return {
        ...done,
        reason: thenSentence(
          done.reason,
          `Pull request #${pr.number} still asks for changes after ${WATCH_ROUNDS} rounds of feedback, ` +
            `not taken in: ${verdict.note} (\`wt-loop start --pr ${pr.number}\` takes it).`,
        ),
      };
    case "clean":
      return { ...done, reason: thenSentence(done.reason, `Pull request #${pr.number}: its checks pass and no changes are requested.`) };
    case "gone":
      return {
        ...done,
        reason: thenSentence(
          done.reason,
          `Pull request #${pr.number} was ${verdict.merged ? "merged" : "closed"} while the loop watched it (${verdict.url}); nothing more was pushed.`,
        ),
        skipPublish: true,
      };
  }
}
