/**
 * State files in the seed's format: wt-tools' bash wt-loop writes `.claude/loop-state.json` with the
 * fields of our state file but no `schema_version` (and `terminal_pid`, `total_input_tokens`… of its own).
 * Such a file must not block wt-loop: it is read as a loop that ran here (status, history) and
 * archived as it is by the next `start`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isComplete, parseStories } from "../stories/story.ts";
import { SCHEMA_VERSION, State, Status, ZERO_TOKENS, isFinal, type Iteration } from "./schema.ts";

// Built on first use: almost every state has a schema_version, and start-up should not pay for
// this schema (docs/performance.md).
let built: ReturnType<typeof build> | null = null;
const seedState = () => (built ??= build());

function build() {
  const num = z.number().catch(0);
  const SeedIteration = z.looseObject({
    n: z.number().int().positive(),
    started: z.string().catch(""),
    ended: z.string().catch(""),
    done_check: z.boolean().catch(false),
    commits: z.array(z.string()).catch([]),
    tokens_used: num,
    input_tokens: num.optional(),
    output_tokens: num.optional(),
    cache_read_tokens: num.optional(),
    cache_create_tokens: num.optional(),
    timed_out: z.boolean().catch(false),
    log_file: z.string().catch(""),
  });

  return z.looseObject({
    worktree_name: z.string(),
    status: z.string(),
    current_iteration: num,
    max_iterations: num,
    started_at: z.string(),
    task: z.string().catch(""),
    iterations: z.array(SeedIteration).catch([]),
    done_criteria: z.string().catch("tasks"),
    stall_threshold: num,
    iteration_timeout_min: num,
    total_tokens: num,
    terminal_pid: z.number().int().positive().nullable().catch(null),
    model: z.string().nullable().catch(null),
    change: z.string().nullable().catch(null),
  });
}

/** True for a parsed JSON value that has no schema_version and the seed's required fields. */
export const isSeedState = (json: unknown): boolean =>
  typeof json === "object" && json !== null && !("schema_version" in json) && seedState().safeParse(json).success;

const iso = (s: string, fallback: string) => (Number.isNaN(Date.parse(s)) ? fallback : new Date(s).toISOString());
const count = (n: number | undefined) => Math.max(0, Math.round(n ?? 0));
const atLeast1 = (n: number, d: number) => (Number.isInteger(n) && n > 0 ? n : d);

/**
 * The stories of the tasks file wt-tools worked from: its change's tasks.md, else the worktree's own.
 * The seed's state holds no story counts; without a readable file they stay unknown (0 of 0).
 */
function seedStories(worktree: string, change: string | null) {
  const candidates = [...(change ? [join(worktree, "openspec", "changes", change, "tasks.md")] : []), join(worktree, "tasks.md")];
  for (const [i, file] of candidates.entries()) {
    if (!existsSync(file)) continue;
    try {
      const stories = parseStories(readFileSync(file, "utf8"));
      if (stories.length) return { source: change && i === 0 ? ("openspec" as const) : ("tasks-file" as const), tasksFile: file, total: stories.length, completed: stories.filter(isComplete).length };
    } catch {
      // unreadable: the stories stay unknown rather than keep the state from being read
    }
  }
  return null;
}

/** The seed's state as a schema-valid State of this worktree (unknown statuses read as stopped). */
export function fromSeed(json: unknown, worktreePath: string): State {
  const s = seedState().parse(json);
  const started = iso(s.started_at, new Date(0).toISOString());
  const known = Status.safeParse(s.status);
  const status = known.success ? known.data : "stopped";
  const iterations: Iteration[] = s.iterations.map((i) => {
    const tokens = { input: count(i.input_tokens), output: count(i.output_tokens), cache_read: count(i.cache_read_tokens), cache_creation: count(i.cache_create_tokens) };
    return {
      n: i.n, started: iso(i.started, started), ended: iso(i.ended, iso(i.started, started)), done_check: i.done_check, commits: i.commits,
      tokens_used: count(i.tokens_used), ...(i.timed_out ? { timed_out: true as const } : {}), story_id: null, story_title: null, attempt: 1,
      outcome: i.timed_out ? "timeout" : i.done_check ? "complete" : "no_signal", reason: null, progress: i.commits.length > 0, tokens,
      cost_usd: null, turns: null, exit_code: null, log_file: i.log_file,
    };
  });
  // wt-tools kept no end time: an ended loop ran until its last iteration ended, as far as anyone knows.
  const endedAt = isFinal(status) ? (iterations.at(-1)?.ended ?? null) : null;
  const stories = s.done_criteria === "manual" ? null : seedStories(worktreePath, s.change);
  const sum = (k: keyof typeof ZERO_TOKENS) => iterations.reduce((a, i) => a + i.tokens[k], 0);
  // Parsed, so that the fields wt-tools never had take the state schema's defaults.
  return State.parse({
    schema_version: SCHEMA_VERSION, worktree_name: s.worktree_name, worktree_path: worktreePath, status,
    current_iteration: count(s.current_iteration), max_iterations: atLeast1(s.max_iterations, Math.max(1, iterations.length)),
    started_at: started, updated_at: iterations.at(-1)?.ended ?? started, ended_at: endedAt, task: s.task, iterations,
    done_criteria: s.done_criteria === "manual" ? "manual" : "tasks", stall_threshold: atLeast1(s.stall_threshold, 2),
    iteration_timeout_min: s.iteration_timeout_min > 0 ? s.iteration_timeout_min : 45, total_tokens: count(s.total_tokens),
    tokens: { input: sum("input"), output: sum("output"), cache_read: sum("cache_read"), cache_creation: sum("cache_creation") },
    total_cost_usd: 0, max_retries: 3, command_timeout_sec: 30, agent: "claude", agent_cmd: null, model: s.model, checkpoint: "branch",
    on_complete: "keep", terminal: "auto", source: stories?.source ?? "manual", change: s.change, tasks_file: stories?.tasksFile ?? null,
    stories_total: stories?.total ?? 0, stories_completed: stories?.completed ?? 0, planned_stories: [],
    current_story: null, runner_pid: status === "running" || status === "starting" ? s.terminal_pid : null, runner_started: null, agent_pid: null,
    checkpoint_branch: null, original_branch: null, original_commit: null, checkpoint_sha: null, completion: null, completion_message: null, completion_pending: false,
    reason: known.success ? "Written by wt-tools' wt-loop (a state file without schema_version)" : `Written by wt-tools' wt-loop with status '${s.status}'`,
    error: null,
    notify: null,
    waiting: null, pause_requested: false, paused_since: null, paused_ms: 0, notes: [], parallel: 1, lanes: [],
  } satisfies z.input<typeof State>);
}
