/**
 * The state format's constants that readers need without loading zod (start-up, docs/performance.md
 * "Performance"); state/schema.ts re-exports them.
 */
export const SCHEMA_VERSION = 1;

export const FINAL_STATUSES = ["done", "stuck", "stalled", "stopped"] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
export const isFinal = (s: string): s is FinalStatus => (FINAL_STATUSES as readonly string[]).includes(s);

/**
 * Whether a runner's death could change this state: it says running (or paused: its runner waits), or it ended with a runner (or its
 * completion question) still recorded. Otherwise no process check is needed, nor its modules loaded.
 */
export const namesLiveRunner = (s: { status: string; runner_pid: number | null; completion_pending?: boolean }) =>
  s.status === "running" || s.status === "paused" || (isFinal(s.status) && (s.completion_pending === true || s.runner_pid !== null));
