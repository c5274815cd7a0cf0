/**
 * A runner that died (a crash, kill -9, a closed window) cannot record its own end: whoever reads its
 * state next (status, stop, monitor, list, the MCP server) corrects it, and ends the processes its
 * agent left behind.
 */
import { endRunLeftovers } from "../proc/contain.ts";
import { isFinal } from "../state/final.ts";
import { isRunner } from "../state/pid.ts";
import type { State } from "../state/schema.ts";
import { writeState } from "../state/store.ts";
import { endedState } from "./ending.ts";

/**
 * A `running` state whose runner is gone (crash, kill -9, closed window) is corrected to `stopped`
 * on disk, so readers are not told a dead loop is alive. Returns the note to show, or null.
 */
export async function correctDeadRunner(path: string, state: State): Promise<string | null> {
  if (isRunner(state.runner_pid, state.runner_started)) return null;
  if (isFinal(state.status) && (state.completion_pending || state.runner_pid !== null)) {
    // Ended, then died in its completion step (or while its question waited): the loop's status
    // stands; the branch stays as the completion left it.
    await endRunLeftovers(state.worktree_path, state.started_at);
    const during = state.completion_pending ? "while its completion question waited" : "during its completion step";
    const note = `The loop's runner (pid ${state.runner_pid ?? "unknown"}) died ${during}; the loop stays ${state.status}, its work on ${state.checkpoint_branch ?? "the current branch"}.`;
    Object.assign(state, { completion_pending: false, runner_pid: null, agent_pid: null, updated_at: new Date().toISOString() });
    await writeState(path, state);
    return note;
  }
  if (state.status !== "running") return null;
  // Its agent's processes (orphans now, in whatever group) would go on editing the tree.
  await endRunLeftovers(state.worktree_path, state.started_at);
  const note = `The loop's runner (pid ${state.runner_pid ?? "unknown"}) is no longer alive; its state was corrected from running to stopped.`;
  const reason = `${note} Work it committed is on ${state.checkpoint_branch ?? "the current branch"}; anything in progress is still in the working tree.`;
  Object.assign(state, endedState(state, { status: "stopped", reason, error: state.error }));
  await writeState(path, state);
  return note;
}
