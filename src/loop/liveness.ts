/**
 * A runner that died (a crash, kill -9, a closed window) cannot record its own end: whoever reads its
 * state next (status, stop, monitor, list, the MCP server) corrects it, and ends the processes its
 * agent left behind.
 */
import { endRunLeftovers } from "../proc/contain.ts";
import { ownedBy } from "../proc/pid.ts";
import { isFinal } from "../state/final.ts";
import type { State } from "../state/schema.ts";
import { writeState } from "../state/store.ts";
import { endedState } from "./ending.ts";

/** What to tell the user when a state names a live process that is not ours: it was not touched. */
export const staleNote = (s: State, pid: number) =>
  `The state names pid ${pid}, which is not a wt-loop runner of ${s.worktree_path} or its agent (a stale or foreign state file): ` +
  "nothing was signalled. If a loop of yours runs here, stop it in its window; otherwise nothing needs doing (`wt-loop start` begins afresh).";

/**
 * A `running` state whose runner is gone (crash, kill -9, closed window) is corrected to `stopped`
 * on disk, so readers are not told a dead loop is alive. Returns the note to show, or null.
 */
export async function correctDeadRunner(path: string, state: State): Promise<string | null> {
  const owned = ownedBy(state);
  if (owned.runner !== null) return null;
  // A live process the state names that is not ours: the state is stale (or planted); its runner is
  // not alive as ours, so it is corrected like a dead one — and that process is left alone.
  const stale = owned.foreign !== null ? `${staleNote(state, owned.foreign)} ` : "";
  if (isFinal(state.status) && (state.completion_pending || state.runner_pid !== null)) {
    // Ended, then died in its completion step (or while its question waited): the loop's status
    // stands; the branch stays as the completion left it.
    await endRunLeftovers(state.worktree_path, state.started_at);
    const during = state.completion_pending ? "while its completion question waited" : "during its completion step";
    const note = `${stale ? `${stale}The` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) died ${during}; the`} loop stays ${state.status}, its work on ${state.checkpoint_branch ?? "the current branch"}.`;
    Object.assign(state, { completion_pending: false, runner_pid: null, agent_pid: null, agent_started: null, updated_at: new Date().toISOString() });
    await writeState(path, state);
    return note;
  }
  if (state.status !== "running") return null;
  // Its agent's processes (orphans now, in whatever group) would go on editing the tree.
  await endRunLeftovers(state.worktree_path, state.started_at);
  const note = `${stale ? `${stale}Its` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) is no longer alive; its`} state was corrected from running to stopped.`;
  const reason = `${note} Work it committed is on ${state.checkpoint_branch ?? "the current branch"}; anything in progress is still in the working tree.`;
  Object.assign(state, endedState(state, { status: "stopped", reason, error: state.error }));
  await writeState(path, state);
  return note;
}
