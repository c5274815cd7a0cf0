/**
 * The state format's constants that readers need without loading zod (start-up, docs/performance.md
 * "Performance"); state/schema.ts re-exports them.
 */
export const SCHEMA_VERSION = 1;

export const FINAL_STATUSES = ["done", "stuck", "stalled", "stopped"] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
export const isFinal = (s: string): s is FinalStatus => (FINAL_STATUSES as readonly string[]).includes(s);
