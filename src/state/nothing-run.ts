/**
 * The fields of a state whose loop has run nothing yet: no runner, agent, checkpoint or ending, no pause
 * or notes. What a new loop starts from (setup/plan.ts) and what a state read from wt-tools' format has
 * (seed.ts). A function, not a constant: the arrays are the state's own, and the state is mutated. The
 * empty arrays are `never[]` so that they take the type of the state they join.
 */
export const nothingRunYet = () => ({
  current_story: null,
  runner_started: null,
  agent_pid: null,
  checkpoint_branch: null,
  original_branch: null,
  original_commit: null,
  checkpoint_sha: null,
  completion: null,
  completion_message: null,
  completion_pending: false,
  error: null,
  waiting: null,
  pause_requested: false,
  paused_since: null,
  paused_ms: 0,
  notes: [] as never[],
  lanes: [] as never[],
});
