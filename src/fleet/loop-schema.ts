/**
 * The JSON shape of `list --json` and the MCP server's `list_loops` (docs/integrations.md), as zod
 * schemas: the MCP server declares them as its output. Kept apart from fleet/loops.ts, which builds
 * the values: `list` loads no zod at start-up (docs/performance.md).
 */
import { z } from "zod";
import { Lane, Status, StopReason } from "../state/schema.ts";

export const LoopSummary = z.object({
  status: Status,
  /**
   * What the loop waits on while its runner is alive: `question` = the keep/cleanup question is open;
   * `agent` = the agent's service is unavailable (a usage or rate limit…) until `waiting_until`.
   */
  waiting: z.enum(["question", "agent"]).nullable(),
  /** With `waiting: agent`: when the agent is tried again (ISO time). */
  waiting_until: z.string().nullable(),
  story: z.object({ id: z.string(), title: z.string(), index: z.number(), attempt: z.number() }).nullable(),
  stories_completed: z.number(),
  stories_total: z.number(),
  iteration: z.number(),
  max_iterations: z.number(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  /** How long the loop ran (so far), time paused left out; null when its state does not know (a wt-tools state's end). */
  elapsed_ms: z.number().nullable(),
  /** `wt-loop pause` was asked: the loop becomes `paused` when its iteration ends. */
  pause_requested: z.boolean(),
  total_tokens: z.number(),
  total_cost_usd: z.number(),
  runner_pid: z.number().nullable(),
  runner_alive: z.boolean(),
  agent: z.string(),
  change: z.string().nullable(),
  reason: z.string().nullable(),
  error: z.string().nullable(),
  /** Why a `stopped` loop stopped: `user` or `budget` (null otherwise, or for a state that predates it). */
  stop_reason: StopReason.nullable(),
  /** Spent (all runs of the loop) against `--max-cost`/`--max-tokens`; null when neither is set. */
  /** `--sandbox`: how it was set (`on · network: …`), or null. */
  sandbox: z.string().nullable().optional(),
  budget: z.object({ cost_usd: z.number(), tokens: z.number(), max_cost_usd: z.number().nullable(), max_tokens: z.number().nullable() }).nullable(),
  /** `--parallel`: the lanes open now, each a story at work in its own worktree (empty otherwise). */
  lanes: z.array(Lane.pick({ story_id: true, story_title: true, iteration: true, attempt: true, status: true, agent_pid: true, started: true })),
});
export type LoopSummary = z.infer<typeof LoopSummary>;

export const WorktreeLoop = z.object({
  worktree: z.string(),
  name: z.string(),
  /** Short branch name; null when detached. */
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** The worktree the command was run from. */
  current: z.boolean(),
  loop: LoopSummary.nullable(),
  /** Set when this read corrected a dead runner's `running` state to `stopped`. */
  note: z.string().nullable(),
  /** Set when the state file could not be read (corrupt, another worktree's, unreadable). */
  problem: z.string().nullable(),
});
export type WorktreeLoop = z.infer<typeof WorktreeLoop>;
