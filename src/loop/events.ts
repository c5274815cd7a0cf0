/**
 * What the engine tells the world (SPEC §10): one discriminated union that `run` and `monitor`
 * render and `loop-events.jsonl` stores. Message content is never truncated here.
 */
import { z } from "zod";
import { StreamEvent } from "../agents/stream.ts";
import { ChangedFile } from "../checkpoint/changed-files.ts";
import { CheckpointKind, Completion, DoneCriteria, Outcome, Status, Tokens } from "../state/schema.ts";

/** A story of the plan as the loop began: its tasks and how many were ticked already. */
export const PlannedStory = z.object({
  id: z.string(),
  title: z.string(),
  tasks: z.number().int().nonnegative().describe("How many checkbox tasks the story has"),
  done: z.number().int().nonnegative().describe("How many of them were ticked when the loop began"),
});

/**
 * The loop began (its first event, once its stories are read): the whole plan, so a view can list
 * every story before the agent reaches it. Logs written before this event existed do not have it.
 */
export const LoopStarted = z.object({
  type: z.literal("LoopStarted"),
  worktree: z.string(),
  change: z.string().nullable().describe("The OpenSpec change, or null for a plain tasks file or a task without one"),
  tasks_file: z.string().nullable(),
  done_criteria: DoneCriteria.describe("`tasks`: done when every story's boxes are ticked; `manual`: when the agent says so"),
  checkpoint: CheckpointKind,
  max_iterations: z.number().int().positive(),
  max_retries: z.number().int().positive(),
  verify: z.string().nullable().describe("The --verify command that gates each COMPLETE, or null"),
  stories: z.array(PlannedStory).describe("Every story of the plan, in order"),
});

export const StoryProgress = z.object({
  type: z.literal("StoryProgress"),
  story_id: z.string(),
  title: z.string(),
  index: z.number().int().positive(),
  total: z.number().int().nonnegative(),
  completed: z.number().int().nonnegative(),
  iteration: z.number().int().positive(),
  max_iterations: z.number().int().positive(),
  attempt: z.number().int().positive(),
  max_retries: z.number().int().positive(),
  worktree: z.string(),
});

export const StoryEvent = z.object({ type: z.literal("StoryEvent"), story_id: z.string(), event: StreamEvent });

/** The end of one agent run, so a renderer can summarize it (turns, tokens, cost, duration, outcome). */
export const IterationEnd = z.object({
  type: z.literal("IterationEnd"),
  story_id: z.string(),
  iteration: z.number().int().positive(),
  outcome: Outcome,
  reason: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  turns: z.number().int().nonnegative().nullable(),
  tokens: Tokens,
  cost_usd: z.number().nonnegative().nullable(),
  commits: z.array(z.string()),
  files: z
    .array(ChangedFile)
    .default([])
    .describe(
      "The paths the attempt changed since its checkpoint, as measured before it was kept or reverted (after --verify, if any); " +
        "empty when the attempt was stopped or refused before it was measured, and in logs written before this field existed",
    ),
});

/** `--verify`: the command began after an attempt's COMPLETE (src/loop/verify.ts). */
export const VerifyStart = z.object({
  type: z.literal("VerifyStart"),
  story_id: z.string(),
  iteration: z.number().int().positive(),
  command: z.string(),
  log_file: z.string(),
});

/** `--verify`: how the command ended (`exit_code` null when it timed out or was stopped). */
export const VerifyEnd = z.object({
  type: z.literal("VerifyEnd"),
  story_id: z.string(),
  iteration: z.number().int().positive(),
  passed: z.boolean(),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().nonnegative(),
  log_file: z.string(),
});

export const ErrorEvent = z.object({ type: z.literal("Error"), message: z.string() });

/** The agent's service refused a run: the loop waits until `until`, then makes the same attempt again. */
export const WaitingEvent = z.object({
  type: z.literal("Waiting"),
  story_id: z.string(),
  iteration: z.number().int().positive(),
  attempt: z.number().int().positive(),
  /** How many runs of this iteration were refused so far. */
  runs: z.number().int().positive(),
  reason: z.string(),
  since: z.string(),
  until: z.string(),
});

export const CompleteEvent = z.object({
  type: z.literal("Complete"),
  status: Status.exclude(["starting", "running"]),
  reason: z.string(),
  stories_completed: z.number().int().nonnegative(),
  stories_total: z.number().int().nonnegative(),
  iterations: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  total_cost_usd: z.number().nonnegative(),
  duration_ms: z.number().nonnegative(),
  /** Where the work is now: the loop branch (keep), the original branch (cleanup), or null (stash). */
  branch: z.string().nullable(),
  completion: Completion.nullable(),
  /** Why a `stopped` loop stopped (state `stop_reason`): `budget` when --max-cost or --max-tokens was reached. */
  stop_reason: z.enum(["user", "budget"]).nullable().optional(),
});

export const LoopEvent = z.discriminatedUnion("type", [LoopStarted, StoryProgress, StoryEvent, IterationEnd, VerifyStart, VerifyEnd, ErrorEvent, CompleteEvent, WaitingEvent]);
export type LoopEvent = z.infer<typeof LoopEvent>;
export type CompleteEvent = z.infer<typeof CompleteEvent>;
export type LoopStarted = z.infer<typeof LoopStarted>;

/** A stored event line: the event plus when it was written. */
export const LoggedEvent = z.intersection(LoopEvent, z.object({ ts: z.string() }));
export type Logged = z.infer<typeof LoggedEvent>;

/** One line of the event log as an event, or null for a line that is not one (a torn last line while it is written). */
export function parseLoggedEvent(line: string): Logged | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const r = LoggedEvent.safeParse(json);
  return r.success ? r.data : null;
}
