/**
 * State files in the seed's format: wt-tools' bash wt-loop writes `.claude/loop-state.json` with the
 * fields of our state file but no `schema_version` (and `terminal_pid`, `total_input_tokens`… of its own).
 * Such a file must not block wt-loop: it is read as a loop that ran here (status, history) and
 * archived as it is by the next `start`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { isComplete, parseStories } from "../stories/story.ts";
import { isFinal, SCHEMA_VERSION } from "./final.ts";
import type { Iteration, State, Tokens } from "./schema.ts";
import { checkState } from "./state-check.gen.ts";
import { nothingRunYet } from "./nothing-run.ts";
import { knownIterationsMs } from "./run-time.ts";

/**
 * What wt-loop accepts of the seed's state, as a zod schema: the source of truth for `readSeed`, the
 * hand-written reader start-up uses (zod and this schema cost more than `status` itself on a
 * 500-iteration file: docs/performance.md). A test feeds both thousands of broken seed states and
 * requires the same verdict and the same fields. Built only when asked (by that test).
 */
export async function seedSchema() {
  const { z } = await import("zod");
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

type Seed = z.infer<Awaited<ReturnType<typeof seedSchema>>>;
type SeedIteration = Seed["iterations"][number];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown, d: string) => (typeof v === "string" ? v : d);
const bool = (v: unknown) => (typeof v === "boolean" ? v : false);
const strOrNull = (v: unknown) => (typeof v === "string" ? v : null);
const optionalNum = (v: unknown) => (v === undefined ? undefined : num(v));
const positiveInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** An iteration the seed's schema accepts; any other makes the whole list unknown (its `.catch([])`). */
const isIteration = (v: unknown): v is Record<string, unknown> => isObject(v) && positiveInt(v.n);
const commitsOf = (v: unknown): string[] => {
  if (!Array.isArray(v)) return [];
  for (let k = 0; k < v.length; k++) if (typeof v[k] !== "string") return [];
  return v as string[];
};

function readIteration(v: unknown, loose: boolean): SeedIteration | null {
  if (!isIteration(v)) return null;
  return {
    ...(loose ? v : {}),
    n: v.n as number,
    started: str(v.started, ""),
    ended: str(v.ended, ""),
    done_check: bool(v.done_check),
    commits: commitsOf(v.commits),
    tokens_used: num(v.tokens_used),
    input_tokens: optionalNum(v.input_tokens),
    output_tokens: optionalNum(v.output_tokens),
    cache_read_tokens: optionalNum(v.cache_read_tokens),
    cache_create_tokens: optionalNum(v.cache_create_tokens),
    timed_out: bool(v.timed_out),
    log_file: str(v.log_file, ""),
  };
}

/**
 * `seedSchema().safeParse(json)`, by hand: the seed's fields with its defaults, or null when it is not one.
 * `loose: false` leaves out of each iteration the keys the schema does not name (which it keeps): the
 * same verdict and fields, without copying 500 iterations whole for a reader that uses neither.
 */
export function readSeed(json: unknown, loose = true): Seed | null {
  const top = seedTop(json);
  if (!top) return null;
  // One iteration that is not one makes the list unknown (empty), as the schema's catch does.
  let iterations: SeedIteration[] = [];
  if (Array.isArray(top.iterations)) {
    for (const v of top.iterations) {
      const i = readIteration(v, loose);
      if (!i) {
        iterations = [];
        break;
      }
      iterations.push(i);
    }
  }
  return { ...top, iterations };
}

/** The seed's fields as readSeed reads them, but its iterations, left as found (with the keys it does not name). */
type SeedTop = Pick<Seed, Exclude<KnownKeys<Seed>, "iterations">> & { [key: string]: unknown };
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

function seedTop(json: unknown): SeedTop | null {
  if (!isObject(json) || typeof json.worktree_name !== "string" || typeof json.status !== "string" || typeof json.started_at !== "string") return null;
  return {
    ...json,
    worktree_name: json.worktree_name,
    status: json.status,
    current_iteration: num(json.current_iteration),
    max_iterations: num(json.max_iterations),
    started_at: json.started_at,
    task: str(json.task, ""),
    done_criteria: str(json.done_criteria, "tasks"),
    stall_threshold: num(json.stall_threshold),
    iteration_timeout_min: num(json.iteration_timeout_min),
    total_tokens: num(json.total_tokens),
    terminal_pid: json.terminal_pid === null || positiveInt(json.terminal_pid) ? (json.terminal_pid as number | null) : null,
    model: strOrNull(json.model),
    change: strOrNull(json.change),
  };
}

/** True for a parsed JSON value that has no schema_version and the seed's required fields. */
export const isSeedState = (json: unknown): boolean => isObject(json) && !("schema_version" in json) && readSeed(json) !== null;

const STATUSES: readonly string[] = ["starting", "running", "paused", "done", "stuck", "stalled", "stopped"] satisfies State["status"][];

/**
 * A time of the seed's file in the state's form (UTC, milliseconds), or `fallback` when it is not a
 * time. A year outside 0000–9999 has no such form (toISOString writes "+010000-…", which the state's
 * datetime pattern refuses): it is as unknown as a missing one.
 */
function time(s: string, fallback: Time): Time {
  const t = Date.parse(s);
  return t >= MIN_TIME && t < MAX_TIME ? { iso: new Date(t).toISOString(), ms: t } : fallback;
}
/** A time in the state's form, and what Date.parse makes of it: the receipt's sums need not parse it again. */
type Time = { iso: string; ms: number };
const EPOCH: Time = { iso: new Date(0).toISOString(), ms: 0 };
const MIN_TIME = Date.parse("0000-01-01T00:00:00.000Z");
const MAX_TIME = Date.parse("+010000-01-01T00:00:00.000Z");
// Counts beyond what a state can hold (2^53) are as unknown as a missing one.
const count = (n: number | undefined) => (Number.isSafeInteger(Math.round(n ?? 0)) ? Math.max(0, Math.round(n ?? 0)) : 0);
const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const atLeast1 = (n: number, d: number) => (Number.isSafeInteger(n) && n > 0 ? n : d);

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
      if (stories.length)
        return {
          source: change && i === 0 ? ("openspec" as const) : ("tasks-file" as const),
          tasksFile: file,
          total: stories.length,
          completed: stories.filter(isComplete).length,
        };
    } catch {
      // unreadable: the stories stay unknown rather than keep the state from being read
    }
  }
  return null;
}

/** The seed's state as a schema-valid State of this worktree (unknown statuses read as stopped). */
export function fromSeed(json: unknown, worktreePath: string): State {
  const s = readSeed(json, false);
  if (!s) throw new Error("fromSeed: not a state in the seed's format (isSeedState says which are)");
  return stateOfSeed(s, worktreePath);
}

/**
 * `fromSeed(json)`, or null where `readSeed` says it is not the seed's: what readState uses. Its
 * iterations are read and built in one pass, without readSeed's copy of each (500 of them made a seed
 * state cost twice a state of ours: docs/performance.md); test/state/seed.test.ts requires the same value.
 */
export function seedState(json: unknown, worktreePath: string): State | null {
  const top = seedTop(json);
  return top && stateOf(top, Array.isArray(top.iterations) ? top.iterations : [], worktreePath);
}

/**
 * `fromSeed` of what `readSeed` read. The iterations are built here, each field of its kind (a time
 * by `iso`, a count by `count`), and are not checked again: the generated check of 500 of them was
 * a fifth of `status` on such a file (docs/performance.md). The rest of the state is checked, for the
 * defaults of the fields wt-tools never had. test/state/seed.test.ts requires, over every broken seed
 * state it makes, that checking the whole result changes nothing: the schema stays the judge.
 */
export const stateOfSeed = (s: Seed, worktreePath: string): State => stateOf(s, s.iterations, worktreePath);

/**
 * The seed's iterations `raw` (as found, or as readSeed read them: reading is the same on both) in the
 * state's form, their tokens added to `sum` and their spans recorded (run-time.ts); null when one is not
 * an iteration the seed's schema accepts. Written for the interpreter that runs it at start-up, 500
 * times over in a long loop: no call of ours an iteration. Each small helper it used to call (`time`,
 * `countOf`, `str`…) was compiled by the baseline JIT on the main thread after ~30 calls, then by the
 * DFG on another thread (~3 ms of CPU at 500 iterations: docs/performance.md). Each field is what its
 * helper gave: test/state/seed-iterations.test.ts keeps those helpers as the reference.
 */
function iterationsOf(raw: readonly unknown[], start: Time, sum: Tokens): Iteration[] | null {
  const out: Iteration[] = [];
  const spans: number[] = [];
  for (let k = 0; k < raw.length; k++) {
    const v = raw[k] as Record<string, unknown>;
    if (typeof v !== "object" || v === null) return null;
    const n = v.n;
    // positiveInt, without a call: an integer in 1..2^53-1.
    if (typeof n !== "number" || !(n > 0 && n <= MAX_COUNT && n % 1 === 0) || Array.isArray(v)) return null;
    // A count that is one as it is (most are); anything else by `count` (a rare call).
    let x = v.input_tokens;
    const input = typeof x !== "number" ? 0 : x > 0 && x <= MAX_COUNT && x % 1 === 0 ? x : count(num(x));
    x = v.output_tokens;
    const output = typeof x !== "number" ? 0 : x > 0 && x <= MAX_COUNT && x % 1 === 0 ? x : count(num(x));
    x = v.cache_read_tokens;
    const cacheRead = typeof x !== "number" ? 0 : x > 0 && x <= MAX_COUNT && x % 1 === 0 ? x : count(num(x));
    x = v.cache_create_tokens;
    const cacheCreation = typeof x !== "number" ? 0 : x > 0 && x <= MAX_COUNT && x % 1 === 0 ? x : count(num(x));
    x = v.tokens_used;
    const used = typeof x !== "number" ? 0 : x > 0 && x <= MAX_COUNT && x % 1 === 0 ? x : count(num(x));
    sum.input += input;
    sum.output += output;
    sum.cache_read += cacheRead;
    sum.cache_creation += cacheCreation;
    // time(): a time the state can hold (years 0000-9999), else the one before it (the loop's start, its start).
    let t = typeof v.started === "string" ? Date.parse(v.started) : Number.NaN;
    const beganMs = t >= MIN_TIME && t < MAX_TIME ? t : start.ms;
    const started = beganMs === t ? new Date(t).toISOString() : start.iso;
    t = typeof v.ended === "string" ? Date.parse(v.ended) : Number.NaN;
    const endedMs = t >= MIN_TIME && t < MAX_TIME ? t : beganMs;
    const ended = endedMs === t ? new Date(t).toISOString() : started;
    // commitsOf: an array of strings, else none. Not copied (as readSeed does not): the JSON it was
    // parsed from is read once, by this, and kept by no one else.
    let commits: string[] = [];
    x = v.commits;
    if (Array.isArray(x)) {
      let all = true;
      for (let j = 0; j < x.length && all; j++) all = typeof x[j] === "string";
      if (all) commits = x;
    }
    const doneCheck = v.done_check === true;
    const timedOut = v.timed_out === true;
    // In the order of the schema's fields, as the check would write them (`status --json` prints them so).
    const it: Iteration = {
      n,
      started,
      ended,
      done_check: doneCheck,
      commits,
      tokens_used: used,
      story_id: null,
      story_title: null,
      attempt: 1,
      outcome: timedOut ? "timeout" : doneCheck ? "complete" : "no_signal",
      reason: null,
      progress: commits.length > 0,
      tokens: { input, output, cache_read: cacheRead, cache_creation: cacheCreation },
      cost_usd: null,
      turns: null,
      exit_code: null,
      log_file: typeof v.log_file === "string" ? v.log_file : "",
    };
    // Set at the next index rather than pushed: a push is a call into the runtime in the interpreter.
    out[k] = timedOut ? timedOutAt(it) : it;
    spans[k] = endedMs - beganMs;
  }
  knownIterationsMs(out, spans);
  return out;
}

/** `it` with `timed_out: true` where the schema has it, after `tokens_used` (rare: a copy is fine). */
function timedOutAt(it: Iteration): Iteration {
  const { n, started, ended, done_check, commits, tokens_used, ...rest } = it;
  return { n, started, ended, done_check, commits, tokens_used, timed_out: true, ...rest };
}

/** The state of the seed's fields `s` and its iterations `raw` (as found, or as readSeed read them). */
function stateOf(s: SeedTop, raw: readonly unknown[], worktreePath: string): State {
  const start = time(s.started_at, EPOCH);
  const started = start.iso;
  const known = STATUSES.includes(s.status);
  const status = known ? (s.status as State["status"]) : "stopped";
  let sum: Tokens = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  let iterations = iterationsOf(raw, start, sum);
  if (!iterations) {
    // One iteration that is not one makes the list unknown (empty), as the schema's catch does.
    iterations = [];
    sum = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  }
  // wt-tools kept no end time: an ended loop ran until its last iteration ended, as far as anyone knows.
  const endedAt = isFinal(status) ? (iterations.at(-1)?.ended ?? null) : null;
  const stories = s.done_criteria === "manual" ? null : seedStories(worktreePath, s.change);
  // Checked (the generated State.parse: state/codegen.ts), so that the fields wt-tools never had take
  // the state schema's defaults; the iterations, built above, join it after.
  const checked = checkState({
    schema_version: SCHEMA_VERSION,
    worktree_name: s.worktree_name,
    worktree_path: worktreePath,
    status,
    current_iteration: count(s.current_iteration),
    max_iterations: atLeast1(s.max_iterations, Math.max(1, iterations.length)),
    started_at: started,
    updated_at: iterations.at(-1)?.ended ?? started,
    ended_at: endedAt,
    task: s.task,
    iterations: [],
    done_criteria: s.done_criteria === "manual" ? "manual" : "tasks",
    stall_threshold: atLeast1(s.stall_threshold, 2),
    iteration_timeout_min: s.iteration_timeout_min > 0 ? s.iteration_timeout_min : 45,
    total_tokens: count(s.total_tokens),
    // A sum past 2^53 is as unknown as a count past it (count): the iterations keep theirs.
    tokens: { input: count(sum.input), output: count(sum.output), cache_read: count(sum.cache_read), cache_creation: count(sum.cache_creation) },
    total_cost_usd: 0,
    max_retries: 3,
    command_timeout_sec: 30,
    agent: "claude",
    agent_cmd: null,
    model: s.model,
    checkpoint: "branch",
    on_complete: "keep",
    terminal: "auto",
    source: stories?.source ?? "manual",
    change: s.change,
    tasks_file: stories?.tasksFile ?? null,
    stories_total: stories?.total ?? 0,
    stories_completed: stories?.completed ?? 0,
    planned_stories: [],
    ...nothingRunYet(),
    runner_pid: status === "running" || status === "starting" ? s.terminal_pid : null,
    reason: known ? "Written by wt-tools' wt-loop (a state file without schema_version)" : `Written by wt-tools' wt-loop with status '${s.status}'`,
    notify: null,
    parallel: 1,
  } satisfies z.input<typeof import("./schema.ts").State>);
  if (!checked.ok) throw new Error(`wt-loop read a state in the seed's format into an invalid state: ${checked.path} is not ${checked.expected}`);
  checked.value.iterations = iterations;
  return checked.value;
}
