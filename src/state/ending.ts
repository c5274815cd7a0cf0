/** The state of a loop that has ended, built in one place whatever ended it. */
import { pausedMs } from "./run-time.ts";
import type { FinalStatus, State, StopReason } from "./schema.ts";

export interface End {
  status: FinalStatus;
  reason: string;
  /** A fatal error (state `error`); none when absent. */
  error?: string | null;
  /** Why a `stopped` loop stopped (state `stop_reason`); none (null) for a runner that died or was force-quit. */
  stopReason?: StopReason;
}

/**
 * `state` ended: its final status and reason, `ended_at`, and nothing left in flight (no story, agent,
 * wait or question). The runner is recorded as gone; a runner that still has its completion step to
 * run sets `runner_pid` again (finish.ts).
 */
export function endedState(state: State, end: End, now = new Date().toISOString()): State {
  return {
    ...state,
    status: end.status,
    reason: end.reason,
    error: end.error ?? null,
    stop_reason: end.stopReason ?? null,
    unchecked_story: uncheckedStory(state), // before current_story goes
    current_story: null,
    agent_pid: null,
    agent_started: null,
    runner_pid: null,
    waiting: null,
    // A pause ends with the loop: its time so far stays counted out of the run time.
    pause_requested: false,
    paused_ms: pausedMs(state, Date.parse(now)),
    paused_since: null,
    completion_pending: false,
    ended_at: now,
    updated_at: now,
  };
}

/**
 * The story whose last attempt's work is in the tree unaccepted (state `unchecked_story`): one in
 * flight that was never recorded (the runner died, or wt-loop failed during it), or a recorded attempt
 * that was not accepted and not reverted — `stopped`, or the one a loop ended `stuck`/`stalled` on,
 * whose tree is left to look at; else the one this run took over from the previous and has not
 * checked yet. Tasks criteria only: a manual loop's one story is never done by ticks.
 */
export function uncheckedStory(s: State): string | null {
  const last = s.iterations.at(-1);
  if (s.done_criteria !== "tasks") return null;
  if (s.current_story && (last?.n ?? 0) < s.current_iteration) return s.current_story.id;
  if (last && last.outcome !== "complete" && last.outcome !== "unavailable") return last.story_id;
  // Otherwise the one this run took over and has not checked yet (the engine clears it on acceptance).
  return s.unchecked_story ?? null;
}
