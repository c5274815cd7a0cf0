/**
 * The state file format (`.claude/loop-state.json`, SPEC §9). This schema is the single source of
 * truth: the types below are inferred from it and README "State file" documents every field.
 * Readers should ignore fields they do not know; `schema_version` changes when a field changes meaning.
 */
import { z } from "zod";
import { FINAL_STATUSES, SCHEMA_VERSION } from "./final.ts";

export { FINAL_STATUSES, isFinal, SCHEMA_VERSION, type FinalStatus } from "./final.ts";

export const Status = z.enum(["starting", "running", "done", "stuck", "stalled", "stopped"]);
export type Status = z.infer<typeof Status>;
FINAL_STATUSES satisfies readonly Status[];

// `unavailable`: the agent's service refused every run of the iteration (credentials, or a wait past --max-wait).
export const Outcome = z.enum(["complete", "rejected", "failed", "no_signal", "timeout", "stopped", "unavailable"]);
export type Outcome = z.infer<typeof Outcome>;

const Iso = z.iso.datetime({ offset: true });
const Count = z.number().int().nonnegative();

export const Tokens = z.object({
  input: Count,
  output: Count,
  cache_read: Count,
  cache_creation: Count,
});
export type Tokens = z.infer<typeof Tokens>;
export const ZERO_TOKENS: Tokens = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
export const sumTokens = (t: Tokens) => t.input + t.output + t.cache_read + t.cache_creation;

/** One run of the `--verify` command (src/loop/verify.ts). */
export const VerifyRun = z.object({
  exit_code: z.number().int().nullable(),
  duration_ms: z.number().nonnegative(),
  timed_out: z.boolean(),
  /** The command's stdout and stderr, together, untruncated. */
  log_file: z.string(),
});
export type VerifyRun = z.infer<typeof VerifyRun>;

export const Iteration = z.object({
  n: z.number().int().positive(),
  started: Iso,
  ended: Iso,
  done_check: z.boolean(),
  commits: z.array(z.string()),
  tokens_used: Count,
  timed_out: z.literal(true).optional(),
  story_id: z.string().nullable(),
  story_title: z.string().nullable(),
  attempt: z.number().int().positive(),
  outcome: Outcome,
  reason: z.string().nullable(),
  progress: z.boolean(),
  tokens: Tokens,
  cost_usd: z.number().nonnegative().nullable(),
  turns: Count.nullable(),
  exit_code: z.number().int().nullable(),
  log_file: z.string(),
  /** `--verify`: the command's run after this attempt's COMPLETE (absent when it did not run). */
  verify: VerifyRun.optional(),
  /** Runs of this iteration the agent's service refused (limit, overload…), reverted and not counted as attempts, and the time waited. */
  unavailable: z.object({ runs: z.number().int().positive(), waited_ms: Count }).optional(),
});
export type Iteration = z.infer<typeof Iteration>;

export const DoneCriteria = z.enum(["tasks", "manual"]);
export const AgentName = z.enum(["claude", "codex", "gemini", "command", "demo"]);
export type AgentName = z.infer<typeof AgentName>;
export const CheckpointKind = z.enum(["branch", "stash"]);
export const OnComplete = z.enum(["ask", "cleanup", "keep"]);
export const Completion = z.enum(["cleanup", "keep"]);
export type Completion = z.infer<typeof Completion>;
export const SourceKind = z.enum(["openspec", "tasks-file", "manual"]);

/** The loop waits for the agent's service (a usage limit): the status stays `running`. */
export const Waiting = z.object({ reason: z.string(), since: Iso, until: Iso });
export type Waiting = z.infer<typeof Waiting>;

export const State = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  worktree_name: z.string(),
  worktree_path: z.string(),
  status: Status,
  current_iteration: Count,
  max_iterations: z.number().int().positive(),
  started_at: Iso,
  updated_at: Iso,
  ended_at: Iso.nullable(),
  task: z.string(),
  iterations: z.array(Iteration),
  done_criteria: DoneCriteria,
  stall_threshold: z.number().int().positive(),
  iteration_timeout_min: z.number().positive(),
  total_tokens: Count,
  tokens: Tokens,
  total_cost_usd: z.number().nonnegative(),
  max_retries: z.number().int().positive(),
  command_timeout_sec: z.number().positive(),
  agent: AgentName,
  agent_cmd: z.string().nullable(),
  model: z.string().nullable(),
  checkpoint: CheckpointKind,
  on_complete: OnComplete,
  terminal: z.string(),
  source: SourceKind,
  change: z.string().nullable(),
  tasks_file: z.string().nullable(),
  stories_total: Count,
  stories_completed: Count,
  /** The stories present at start (tasks criteria): `done` needs every one of them complete. */
  planned_stories: z.array(z.object({ id: z.string(), title: z.string() })).default([]),
  current_story: z
    .object({ id: z.string(), title: z.string(), index: z.number().int().positive(), attempt: Count })
    .nullable(),
  runner_pid: z.number().int().positive().nullable(),
  runner_started: z.string().nullable(),
  agent_pid: z.number().int().positive().nullable(),
  /** The agent's start time (as `runner_started`): without it, or when it differs, `agent_pid` is not this loop's agent. */
  agent_started: z.string().nullable().optional(),
  checkpoint_branch: z.string().nullable(),
  original_branch: z.string().nullable(),
  original_commit: z.string().nullable(),
  checkpoint_sha: z.string().nullable(),
  /** Stash mode: the stash commits this loop made and still holds; cleanup drops these and no others. */
  checkpoint_stashes: z.array(z.string()).optional(),
  /** The tree of the index the user had at start (what cleanup stages again). */
  index_tree: z.string().nullable().optional(),
  /** A completion begun and not finished (the runner died during it): the next start finishes it. */
  completing: Completion.nullable().optional(),
  completion: Completion.nullable(),
  /** What the completion step did (the branch switch, or why it failed); null until it ran. */
  completion_message: z.string().nullable().default(null),
  /** The loop has ended (status is final) and its completion question waits for an answer. */
  completion_pending: z.boolean().default(false),
  reason: z.string().nullable(),
  error: z.string().nullable(),
  /** `--notify CMD`: run when the loop reaches its final status or waits for the user. */
  notify: z.string().nullable().default(null),
  /** `--verify CMD` and `--verify-timeout MIN` (src/loop/verify.ts); absent = none, 10 min. */
  verify: z.string().nullable().optional(),
  verify_timeout_min: z.number().positive().optional(),
  /** `--max-cost USD` and `--max-tokens N`: the whole loop's budget, the earlier runs it continues included (src/loop/budget.ts). */
  max_cost_usd: z.number().positive().nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  /** What the earlier runs of this loop spent: a restart after stuck, stalled or stopped carries it on. */
  spent_before: z.object({ cost_usd: z.number().nonnegative(), tokens: Count }).optional(),
  /** Why a `stopped` loop stopped: `user` (a stop, Ctrl-C), `budget` (--max-cost or --max-tokens reached). */
  stop_reason: z.enum(["user", "budget"]).nullable().optional(),
  /**
   * The story whose last attempt left its work in the tree without it being accepted: cut short (a
   * stop, a failure of wt-loop, the runner's death) or the attempt the loop ended on (stuck, stalled).
   * Its ticks there were never accepted, so the next start attempts that story first.
   */
  unchecked_story: z.string().nullable().optional(),
  /** `--max-wait`: hours the loop may wait in all for an unavailable agent before it is stuck. */
  max_wait_hours: z.number().positive().default(8),
  /** Set while the loop waits for an unavailable agent; null otherwise. */
  waiting: Waiting.nullable().default(null),
});
export type State = z.infer<typeof State>;
