/**
 * The loop (docs/how-it-works.md): for each iteration, take the first incomplete story, run the agent on it,
 * check its claim, then keep its work (checkpoint) or revert and retry, until done, stuck, stalled
 * or stopped. Everything it touches comes in through `LoopDeps`, so tests drive it with real git
 * repositories and real agent programs.
 */
import { emitQuietly, finish, type Ending } from "./finish.ts";
import { plural } from "../text/format.ts";
import { errorMessage, thenSentence } from "../errors.ts";
import { CommandError } from "../proc/spawn.ts";
import type { State } from "../state/schema.ts";
import { isComplete } from "../stories/story.ts";
import { loadStories } from "../stories/source.ts";
import type { LoopDeps } from "./ports.ts";
import { harnessStep, recordCheckpoint, rescue } from "./harness.ts";
import { budgetReached } from "../record/budget.ts";
import { pauseHere, steerInbox, type Inbox } from "./steer-inbox.ts";
import { attemptStory, recordIteration } from "./attempt.ts";
import { storyBegins, storyTurns } from "./story-turn.ts";
import { runParallel } from "./lanes/scheduler.ts";
import { windowTitle } from "../text/window-title.ts";
import { auditDue, auditRound } from "./audit-round.ts";
import { watchRound } from "./watch-round.ts";

/** Runs the loop whose state `deps.store` holds (run/wire.ts), changing it there; returns it as it ended. */
export async function runLoop(deps: LoopDeps): Promise<State> {
  const state = deps.store.state;
  // Every write of the state carries where the checkpoint is (its stashes, the index tree).
  deps.store.beforeSave((s) => recordCheckpoint(s, deps.checkpoint));
  Object.assign(state, { status: "running", runner_pid: process.pid, error: null, reason: null });
  await deps.store.save();

  const inbox = steerInbox(state, deps);
  let ending: Ending;
  try {
    // First, before the checkpoint moves anything: what the user had stays reachable past the loop.
    state.user_work = await harnessStep("keeping a snapshot of your work", () =>
      deps.checkpoint.userWork.keep(state.user_work ?? null, state.started_at, async (w) => {
        state.user_work = w;
        await deps.store.save();
      }),
    );
    const cp = await harnessStep("taking the initial checkpoint", () => deps.checkpoint.init());
    Object.assign(state, { checkpoint_branch: cp.branch, original_branch: cp.originalBranch, original_commit: cp.originalCommit, checkpoint_sha: cp.sha });
    await deps.store.save();
    // --parallel 1 (the default) is the sequential engine, untouched; above 1 the scheduler runs lanes.
    ending = state.parallel > 1 ? await parallelThenAudit(state, deps, inbox) : await iterate(state, deps, inbox);
  } catch (err) {
    // Nothing is reverted, cleaned or dropped after a failure of the harness: the reason says where the work is.
    const where = rescue(deps.checkpoint).replace(/\.$/, ""); // finish adds its own sentence after it
    const cutByStop = deps.signal.aborted && err instanceof CommandError && err.reason === "aborted";
    const failed = cutByStop ? undefined : errorMessage(err);
    ending = deps.signal.aborted
      ? { status: "stopped", reason: `Stopped by the user${failed ? ` (and ${failed})` : ""}. ${where}`, error: failed, harness: !cutByStop }
      : { status: "stuck", reason: thenSentence(`Fatal error: ${failed}`, where), error: failed, harness: true };
    if (ending.error) emitQuietly(deps, { type: "Error", message: ending.reason });
  }
  await inbox.close(); // requests that come now are withdrawn by their senders: the loop has ended
  return finish(state, ending, deps);
}

/**
 * Events on the way out must not hide the failure that ends the loop: when the event log is what
 * failed (a full disk), the Error and Complete events fail too, and the state still tells the truth.
 */
const UNCHECKED =
  "The previous attempt at this story was not accepted, and its work was left in the tree (it was interrupted, " +
  "or the loop ended on it). Its boxes may be ticked already: make sure the work is really done and works, then report.";

const allComplete = (stories: { id: string }[]): Ending => ({
  status: "done",
  reason: stories.length === 1 ? "The 1 story is complete" : `All ${stories.length} stories are complete`,
});
const withNote = (e: Ending, note: string | null): Ending => (note ? { ...e, reason: thenSentence(e.reason, note) } : e);

/**
 * `--parallel` with `--audit`: the lanes run to `done`, then the audit runs in the main worktree, which holds
 * every integrated story; its gaps are a new story the lanes take on as they would any other.
 */
async function parallelThenAudit(state: State, deps: LoopDeps, inbox: Inbox): Promise<Ending> {
  for (let rounds = 0; ; ) {
    const ending = await runParallel(state, deps, inbox);
    if (ending.status !== "done") return ending;
    const audit = auditDue(state);
    if (!audit.due) {
      // --watch: the pull request's feedback, as stories the lanes take on.
      const watched = await watchRound(state, deps, withNote(ending, audit.note), rounds);
      if (watched !== "more") return watched ?? withNote(ending, audit.note);
      rounds++;
      continue;
    }
    const overBudget = budgetReached(state);
    if (overBudget) return { status: "stopped", reason: overBudget, stopReason: "budget" };
    if (state.current_iteration >= state.max_iterations)
      return {
        status: "stuck",
        reason: `Reached the maximum of ${plural(state.max_iterations, "iteration")} before the work was done (every story is complete; the audit did not run)`,
      };
    const after = await auditRound(state, deps, await loadStories(deps.source));
    if (after) return after;
  }
}

async function iterate(state: State, deps: LoopDeps, inbox: Inbox): Promise<Ending> {
  const { checkpoint } = deps;
  let storyId: string | null = null;
  let attempt = 0;
  let retryReason: string | undefined;
  let noProgress = 0;
  let watchRounds = 0;

  const turn = storyTurns(state, deps);
  while (true) {
    if (deps.signal.aborted) return { status: "stopped", reason: "Stopped by the user" };
    const { stories, gone } = await turn();
    if (gone) return gone;
    // A story whose last attempt left unaccepted work in the tree goes first, ticked or not: those
    // ticks were never accepted (nor verified).
    const unchecked = stories.find((s) => s.id === state.unchecked_story);
    const next = unchecked ?? stories.find((s) => !isComplete(s));
    const allDone = !next || (!unchecked && state.done_criteria === "tasks" && stories.every(isComplete));
    if (allDone) {
      // --audit: one more agent run checks the whole change against its goal before it is called done.
      const audit = auditDue(state);
      if (!audit.due) {
        // --watch: push, then the pull request's checks and reviews; their feedback is new stories of the tasks file.
        const watched = await watchRound(state, deps, withNote(allComplete(stories), audit.note), watchRounds);
        if (watched !== "more") return watched ?? withNote(allComplete(stories), audit.note);
        watchRounds++;
        [storyId, attempt, retryReason, noProgress] = [null, 0, undefined, 0];
        continue;
      }
    }
    // After every iteration (done wins: nothing more would be spent); a failed attempt was reverted first.
    const overBudget = budgetReached(state);
    if (overBudget) return { status: "stopped", reason: overBudget, stopReason: "budget" };
    await inbox.check(); // a pause or a new limit asked during the last iteration counts before the next
    if (state.pause_requested) {
      await pauseHere(state, deps, inbox);
      continue; // the tasks file may have changed meanwhile, and the limit too
    }
    if (state.current_iteration >= state.max_iterations)
      return {
        status: "stuck",
        reason: `Reached the maximum of ${plural(state.max_iterations, "iteration")} before the work was done${allDone ? " (every story is complete; the audit did not run)" : ""}`,
      };
    if (allDone || !next) {
      const ending = await auditRound(state, deps, stories);
      if (ending) return ending;
      [storyId, attempt, retryReason, noProgress] = [null, 0, undefined, 0];
      continue; // its gaps are a new story of the tasks file
    }

    if (next.id !== storyId) [storyId, attempt, retryReason] = [next.id, 0, unchecked ? UNCHECKED : undefined];
    attempt++;
    const n = ++state.current_iteration;
    const index = stories.indexOf(next) + 1;
    storyBegins(state, deps, next, { n, index, total: stories.length, attempt });
    deps.setTitle(windowTitle(state.worktree_name, `${n}/${state.max_iterations}`));
    await deps.store.save();

    const started = new Date();
    const it = await attemptStory(state, deps, next, { n, index, total: stories.length, attempt, retryReason });
    const rec = recordIteration(state, deps, it, { n, started, story: next, attempt });
    await deps.store.save();

    const r = it.result;
    if (r.outcome === "stopped") return { status: "stopped", reason: "Stopped by the user" };
    if (r.outcome === "unavailable") return { status: "stuck", reason: r.reason }; // waiting more would not help
    if (it.accepted) {
      if (next.id === state.unchecked_story) state.unchecked_story = null; // checked now
      if (state.done_criteria === "manual" && r.outcome === "complete") return { status: "done", reason: "The agent reported the task complete" };
      [attempt, retryReason, noProgress] = [0, undefined, 0];
      continue;
    }
    noProgress = it.progress ? 0 : noProgress + 1;
    let ending: Ending | null = null;
    if (attempt >= state.max_retries) {
      const why = "reason" in r ? r.reason : r.outcome;
      ending = { status: "stuck", reason: `Story ${next.id} "${next.title}" failed after ${plural(attempt, "attempt")}. Last reason: ${why}` };
      deps.store.emit({ type: "Error", message: ending.reason });
    } else if (noProgress >= state.stall_threshold)
      ending = { status: "stalled", reason: `No progress in the last ${plural(noProgress, "iteration")} (no new commit, no change in the working tree)` };
    // A loop that ends on a failed attempt leaves its tree to look at, but never a branch the agent
    // moved or a stash entry it dropped: an attempt that touched refs is reverted even then.
    if (ending && !it.violation) return ending;
    const notes = await harnessStep("reverting the failed attempt", () => checkpoint.revert());
    if (notes.length) {
      rec.reason = `${rec.reason ?? r.outcome}. wt-loop put back what the agent moved: ${notes.join("; ")}`;
      deps.store.emit({ type: "Error", message: `The agent touched branches other than the loop's; put back: ${notes.join("; ")}` });
      await deps.store.save();
    }
    if (ending) return ending;
    // After no_signal the next attempt starts afresh; every other failure tells it what went wrong.
    retryReason = r.outcome === "no_signal" || !("reason" in r) ? undefined : r.reason;
  }
}
