/**
 * How a loop ends (docs/how-it-works.md): the final status, the completion step (cleanup or keep, perhaps
 * asked of the user) and the Complete event. Split from engine.ts, which decides *that* it ends.
 */
import { sandboxLabel } from "../record/sandbox-label.ts";
import { auditOf, storiesOf } from "../record/receipt.ts";
import type { FinalStatus, Completion, State, StopReason } from "../state/schema.ts";
import { errorMessage, thenSentence, UserError } from "../errors.ts";
import { lostMessage } from "../checkpoint/user-work.ts";
import { endedState } from "../state/ending.ts";
import type { CompletionChoice, LoopDeps } from "./ports.ts";
import type { EndAnswer } from "./view.ts";
import type { LoopEvent } from "../record/events.ts";
import type { KeptLane } from "../parallel/ports.ts";
import { windowTitle } from "../text/window-title.ts";
import { GitHubWaitStopped } from "../github/rate-wait.ts";

export interface Ending {
  status: FinalStatus;
  reason: string;
  error?: string;
  /** The loop ended on a failure of its own machinery: completion is `keep`, whatever was chosen. */
  harness?: boolean;
  /** Why a `stopped` loop stopped, when it was not the user (state `stop_reason`). */
  stopReason?: Extract<StopReason, "budget">;
  /** `--watch` ended on a pull request closed or merged: no push nor update at the end (it would be refused). */
  skipPublish?: boolean;
  /** `--parallel`: lane refs that keep work the loop branch does not hold (named by a cleanup, which does not bring it back). */
  keptLanes?: KeptLane[];
}

/** An event that must not fail the ending: the log may be what failed. */
export function emitQuietly(deps: LoopDeps, event: LoopEvent): void {
  try {
    deps.store.emit(event);
  } catch {
    // already reported: the state's error names it
  }
}

/**
 * The loop's end. The final status is a fact the moment it is reached: status, `ended_at` and the
 * Complete event are written before the completion step, so a question nobody answers (a detached
 * window) never leaves readers with "done, still running". While the question waits the state says
 * `completion_pending` and the runner (still `runner_pid`) holds the worktree; `wt-loop stop` answers it.
 */
export async function finish(state: State, ending: Ending, deps: LoopDeps): Promise<State> {
  const kept = await settleUserWork(state, deps);
  if (kept) ending = { ...ending, reason: thenSentence(ending.reason, kept) };
  const stopReason = ending.status === "stopped" ? (ending.stopReason ?? "user") : undefined;
  // The runner still holds the loop: its completion step (and perhaps its question) follows.
  Object.assign(state, endedState(state, { ...ending, stopReason }), { runner_pid: state.runner_pid });
  if (ending.status === "done" && state.done_criteria === "manual") state.stories_completed = state.stories_total;
  deps.setTitle(windowTitle(state.worktree_name, ending.status));
  // After a failure of the harness the completion is `keep`, asked of nobody: the reason says where the work is.
  const decided: CompletionChoice | null = !state.checkpoint_sha
    ? null
    : ending.harness
      ? { kind: "now", choice: "keep" }
      : deps.chooseCompletion(ending.status);
  if (decided?.kind === "ask") {
    // The final status, then Complete, then the waiting question: whoever sees the question waiting
    // finds the end already in the state and the event log (saving once after Complete left a window).
    await deps.store.save();
    emitComplete(state, ending, deps);
    state.completion_pending = true;
    deps.setTitle(windowTitle(state.worktree_name, `${ending.status} · keep or cleanup?`));
    await deps.store.save();
    await complete(state, ending, deps, () => decided.answer());
    deps.setTitle(windowTitle(state.worktree_name, ending.status));
  } else {
    await deps.store.save();
    if (decided) await complete(state, ending, deps, async () => decided.choice);
    emitComplete(state, ending, deps);
  }
  state.completion_pending = false;
  state.runner_pid = null;
  await deps.store.save();
  return state;
}

/**
 * The user's work from before the loop, measured against the tree the loop ends with (which neither
 * cleanup nor keep changes): its ref goes when the tree holds all of it as it was, and stays, named
 * with the way back, when the work deleted or changed some of it. Measured before the completion,
 * so a runner killed during that leaves it settled. Returns what to tell the user.
 */
async function settleUserWork(state: State, deps: LoopDeps): Promise<string | null> {
  const w = state.user_work;
  if (!w) return null;
  try {
    const lost = await deps.checkpoint.userWork.lost(w);
    if (!lost.length) {
      await deps.checkpoint.userWork.release(w);
      state.user_work = null;
      return null;
    }
    state.user_work = { ...w, lost };
    return lostMessage(state.user_work);
  } catch (err) {
    // Not measured: the ref stays, and the next run of this loop measures it again.
    return `Your uncommitted work from before the loop is kept in ${w.ref} (it could not be compared with the tree: ${errorMessage(err)}).`;
  }
}

/** The completion step (cleanup or keep); its failure is reported and recorded, never thrown. */
async function complete(state: State, ending: Ending, deps: LoopDeps, choose: () => Promise<EndAnswer>): Promise<void> {
  try {
    const answer = await choose();
    // `pr`, chosen at the end: keep, then what `--on-complete pr` does.
    const choice: Completion = answer === "pr" ? "keep" : answer;
    const wantsPr = answer === "pr" || state.on_complete === "pr";
    state.completing = choice; // a runner killed from here on leaves a state that says so (checkpoint/resume.ts)
    await deps.store.save();
    let message = notInCleanup(await deps.checkpoint.finish(choice), choice, ending);
    if (choice === "keep" && wantsPr && !ending.harness && !ending.skipPublish && deps.publish) message = thenSentence(message, await publish(state, deps));
    state.completing = null;
    Object.assign(state, { completion: choice, completion_message: message });
    state.reason = thenSentence(ending.reason, message);
  } catch (err) {
    emitQuietly(deps, { type: "Error", message: `Completion failed: ${errorMessage(err)}` });
    if (err instanceof UserError) state.completing = null; // a refusal that changed nothing: nothing to resume
    state.completion_message = `Completion failed: ${errorMessage(err)}`;
    state.error ??= errorMessage(err);
  }
}

/**
 * `--on-complete pr`: the push and the pull request. Its failure is said, never thrown: the loop's ending and
 * its branch stand, and `wt-loop pr` tries again.
 */
async function publish(state: State, deps: LoopDeps): Promise<string> {
  try {
    const said = await deps.publish!(state, async (pr) => {
      state.pull_request = pr;
      await deps.store.save();
    });
    return `${said[0]!.toUpperCase()}${said.slice(1)}.`;
  } catch (err) {
    // A stop during GitHub's rate limit says itself what was pushed and what was not.
    const message = err instanceof GitHubWaitStopped ? err.message : `No pull request was made: ${errorMessage(err)} (\`wt-loop pr\` tries again).`;
    emitQuietly(deps, { type: "Error", message });
    return message;
  }
}

/** A cleanup leaves the loop branch's work uncommitted; the work of lanes not integrated was never on it. */
function notInCleanup(message: string, choice: Completion, ending: Ending): string {
  const kept = ending.keptLanes ?? [];
  if (choice !== "cleanup" || !kept.length) return message;
  return thenSentence(message, notAmongTheChanges(kept));
}

/** What a cleanup does not bring back (a live one, or `stop --cleanup` after the runner died: dead-cleanup.ts). */
export const notAmongTheChanges = (kept: { ref: string }[]) =>
  `Not among those changes: the work of lanes that was not integrated, only in ${kept.map((k) => k.ref).join(", ")} (\`git log -p <ref>\` shows it, ` +
  `\`git update-ref -d <ref>\` deletes it).`;

function emitComplete(state: State, ending: Ending, deps: LoopDeps): void {
  emitQuietly(deps, {
    type: "Complete",
    status: ending.status,
    reason: state.reason ?? ending.reason,
    stories_completed: state.stories_completed,
    stories_total: state.stories_total,
    iterations: state.iterations.length,
    total_tokens: state.total_tokens,
    total_cost_usd: state.total_cost_usd,
    duration_ms: Date.parse(state.ended_at!) - Date.parse(state.started_at),
    completion: state.completion,
    branch: state.completion === "cleanup" ? state.original_branch : state.checkpoint_branch,
    stop_reason: state.stop_reason,
    sandbox: sandboxLabel(state),
    stories: storiesOf(state),
    audit: auditOf(state),
  });
}
