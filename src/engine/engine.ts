/**
 * The loop (docs/how-it-works.md): for each iteration, take the first incomplete story, run the agent on it,
 * check its claim, then keep its work (checkpoint) or revert and retry, until done, stuck, stalled
 * or stopped. Everything it touches comes in through `LoopDeps`, so tests drive it with real git
 * repositories and real agent programs.
 */
import { emitQuietly, finish, type Ending } from "./finish.ts";
import { assertNever, errorMessage, thenSentence } from "../errors.ts";
import { CommandError } from "../proc/spawn.ts";
import type { State } from "../state/schema.ts";
import { isComplete } from "../stories/story.ts";
import { loadStories } from "../stories/source.ts";
import type { LoopDeps } from "./ports.ts";
import { harnessStep, recordCheckpoint, rescue } from "./harness.ts";
import { budgetReached } from "../record/budget.ts";
import { pauseHere, steerInbox, type Inbox } from "./steer-inbox.ts";
import { attemptStory, recordIteration, refreshCounts } from "./attempt.ts";
import { inWorktree } from "./agent-run.ts";
import { storyBegins, storyTurns } from "./story-turn.ts";
import { runParallel } from "./lanes/scheduler.ts";
import { windowTitle } from "../text/window-title.ts";
import { auditDue, auditRound } from "./audit-round.ts";
import { allComplete, decide, STOPPED } from "./policy.ts";
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

const UNCHECKED =
  "The previous attempt at this story was not accepted, and its work was left in the tree (it was interrupted, " +
  "or the loop ended on it). Its boxes may be ticked already: make sure the work is really done and works, then report.";

/**
 * The top of a turn, as the policy (policy.ts) decides it: the loop ends, or is done, or pauses here (then the
 * turn starts over: the tasks file may have changed meanwhile, and the limit too), or goes on to an attempt or
 * the audit. The steering inbox is read between the two questions: a pause or a new limit asked during the
 * last iteration counts before the next.
 */
async function nextStep(
  state: State,
  deps: LoopDeps,
  inbox: Inbox,
  facts: { gone: Ending | null; allDone: boolean },
): Promise<{ kind: "end"; ending: Ending } | { kind: "done"; note: string | null } | { kind: "pause" } | { kind: "audit" } | { kind: "attempt" }> {
  const audit = facts.allDone ? auditDue(state) : ({ due: false, note: null } as const);
  const turn = decide({ at: "turn", stopRequested: deps.signal.aborted, gone: facts.gone, allDone: facts.allDone, audit, overBudget: budgetReached(state) });
  if (turn.kind !== "on") return turn;
  await inbox.check();
  const go = decide({
    at: "go",
    pauseRequested: state.pause_requested,
    iteration: state.current_iteration,
    maxIterations: state.max_iterations,
    allDone: facts.allDone,
  });
  if (go.kind === "pause") await pauseHere(state, deps, inbox);
  return go;
}

/**
 * `--parallel` with `--audit`: the lanes run to `done`, then the audit runs in the main worktree, which holds
 * every integrated story; its gaps are a new story the lanes take on as they would any other.
 */
async function parallelThenAudit(state: State, deps: LoopDeps, inbox: Inbox): Promise<Ending> {
  for (let rounds = 0; ; ) {
    const ending = await runParallel(state, deps, inbox);
    if (ending.status !== "done") return ending;
    const step = await nextStep(state, deps, inbox, { gone: null, allDone: true });
    switch (step.kind) {
      case "end":
        return step.ending;
      case "done": {
        // as the lanes said it (with the lanes' refs kept, if any), and what the audit adds
        const done = step.note ? { ...ending, reason: thenSentence(ending.reason, step.note) } : ending;
        // --watch: the pull request's feedback, as stories the lanes take on.
        const watched = await watchRound(state, deps, done, rounds);
        if (watched !== "more") return watched ?? done;
        rounds++;
        continue;
      }
      case "pause":
        continue; // then the lanes look again: the tasks file may have changed
      case "audit": {
        const after = await auditRound(state, deps, await loadStories(deps.source));
        if (after) return after;
        continue;
      }
      case "attempt":
        continue; // not every story is complete after all: the lanes take them on
      default:
        return assertNever(step);
    }
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
    if (deps.signal.aborted) return STOPPED; // nothing is read after a stop
    const { stories, gone } = await turn();
    // A story whose last attempt left unaccepted work in the tree goes first, ticked or not: those
    // ticks were never accepted (nor verified).
    const unchecked = stories.find((s) => s.id === state.unchecked_story);
    const next = unchecked ?? stories.find((s) => !isComplete(s));
    const allDone = !next || (!unchecked && state.done_criteria === "tasks" && stories.every(isComplete));
    // After every iteration (a failed attempt was reverted first).
    const step = await nextStep(state, deps, inbox, { gone, allDone });
    switch (step.kind) {
      case "end":
        return step.ending;
      case "done": {
        const done = allComplete(stories.length, step.note);
        // --watch: push, then the pull request's checks and reviews; their feedback is new stories of the tasks file.
        const watched = await watchRound(state, deps, done, watchRounds);
        if (watched !== "more") return watched ?? done;
        watchRounds++;
        [storyId, attempt, retryReason, noProgress] = [null, 0, undefined, 0];
        continue;
      }
      case "pause":
        continue; // the tasks file may have changed meanwhile, and the limit too
      case "audit": {
        const ending = await auditRound(state, deps, stories);
        if (ending) return ending;
        [storyId, attempt, retryReason, noProgress] = [null, 0, undefined, 0];
        continue; // its gaps are a new story of the tasks file
      }
      case "attempt":
        break;
      default:
        return assertNever(step);
    }
    if (!next) throw new Error("unreachable: a story to attempt"); // allDone when there is none

    if (next.id !== storyId) [storyId, attempt, retryReason] = [next.id, 0, unchecked ? UNCHECKED : undefined];
    attempt++;
    const n = ++state.current_iteration;
    const index = stories.indexOf(next) + 1;
    storyBegins(state, deps, next, { n, index, total: stories.length, attempt });
    deps.setTitle(windowTitle(state.worktree_name, `${n}/${state.max_iterations}`));
    // Forced to the disk only when a restart needs it (record/store.ts): a new story's start, not a retry's.
    await deps.store.save("if-restart-differs");

    const started = new Date();
    const it = await attemptStory({ ...inWorktree(state, n), story: next, index, total: stories.length, attempt, retryReason }, deps);
    if (it.stories) refreshCounts(state, it.stories); // its tree is the loop's: the counts are
    const rec = recordIteration(state, deps, it, { n, started, story: next, attempt });
    await deps.store.save(); // forced: the end record goes with the checkpoint commit

    const r = it.result;
    const d = decide({
      at: "attempted",
      story: next,
      outcome: r.outcome,
      reason: "reason" in r ? r.reason : null,
      kept: it.accepted,
      progress: it.progress,
      doneCriteria: state.done_criteria,
      attempt,
      maxRetries: state.max_retries,
      noProgress,
      stallThreshold: state.stall_threshold,
    });
    if (it.accepted && next.id === state.unchecked_story) state.unchecked_story = null; // checked now
    switch (d.kind) {
      case "end":
        return d.ending;
      case "accept":
        [attempt, retryReason, noProgress] = [0, undefined, 0];
        continue;
      case "give-up":
        if (d.tell) deps.store.emit({ type: "Error", message: d.ending.reason });
        // A loop that ends on a failed attempt leaves its tree to look at, but never a branch the agent
        // moved or a stash entry it dropped: an attempt that touched refs is reverted even then.
        if (!it.violation) return d.ending;
        break;
      case "retry":
        [retryReason, noProgress] = [d.reason, d.noProgress];
        break;
      default:
        return assertNever(d);
    }
    // A loop that ends on a failed attempt leaves its tree to look at, but never a branch the agent
    // moved or a stash entry it dropped: an attempt that touched refs is reverted even then.
    const notes = await harnessStep("reverting the failed attempt", () => checkpoint.revert());
    if (notes.length) {
      rec.reason = `${rec.reason ?? r.outcome}. wt-loop put back what the agent moved: ${notes.join("; ")}`;
      deps.store.emit({ type: "Error", message: `The agent touched branches other than the loop's; put back: ${notes.join("; ")}` });
      await deps.store.save();
    }
    if (d.kind === "give-up") return d.ending;
  }
}
