/**
 * States in our format (src/state/schema.ts), every field varied: statuses, lanes, reviews, audits,
 * notes, waiting, budgets, GitHub links, counts near 2^53, negative and zero durations, fields left out
 * (optional and defaulted ones), fields unknown to this version, and now and then one broken field.
 * Paths are written with WT for the worktree's own path; pids with the placeholders world.ts fills.
 */
import { SCHEMA_VERSION } from "../../src/state/final.ts";
import { State } from "../../src/state/schema.ts";
import type { Rng } from "./rng.ts";
import type { PlannedStory } from "./tasks.ts";
import { long, plain, text } from "./texts.ts";
import { iso, NOW, T0 } from "./times.ts";

/** The worktree's path, replaced when the case is laid out (JSON-escaped). */
export const WT = "__WT__";
/** Placeholders for pids known only when the processes exist (world.ts `Pids`). */
export const PID = {
  own: "__OWN_PID__",
  ownStarted: "__OWN_STARTED__",
  dead: "__DEAD_PID__",
  foreign: "__FOREIGN_PID__",
  foreignStarted: "__FOREIGN_STARTED__",
};

export type Runner = "none" | "own" | "dead" | "foreign" | "foreign-wrong-start" | "pid1";
const OUTCOMES = ["complete", "rejected", "failed", "no_signal", "timeout", "stopped", "unavailable"] as const;
const AGENTS = ["claude", "codex", "gemini", "command", "demo"] as const;
const REVIEWERS = ["claude", "codex", "gemini", "command"] as const;
const MAX = Number.MAX_SAFE_INTEGER;

/** A count: small, large, or at the edge of what a double holds exactly. */
function count(r: Rng, huge: boolean): number {
  if (huge)
    return r.weighted([
      [3, MAX - r.int(0, 1000)],
      [1, 2 ** 52 + r.int(0, 1000)],
      [1, Math.floor(MAX / 3)],
    ] as const);
  return r.weighted([
    [1, 0],
    [6, r.int(1, 50_000)],
    [2, r.int(50_000, 5_000_000)],
    [1, r.int(5_000_000, 2_000_000_000)],
    // Where a count's text changes shape: its groups of three, a million, a billion.
    [1, r.pick([999, 1000, 9999, 99_999, 999_999, 1_000_000, 999_999_999, 1_000_000_000, 1_000_000_001, 2 ** 31, 2 ** 32])],
  ] as const);
}
const cost = (r: Rng) =>
  r.weighted([
    [1, 0],
    [5, Math.round(r.next() * 300) / 100],
    [1, r.next() * 1e-6],
    [1, 12345.678],
    [1, 1e21],
  ] as const);
const tokens = (r: Rng, huge: boolean) => ({ input: count(r, huge), output: count(r, huge), cache_read: count(r, huge), cache_creation: count(r, huge) });
const sha = (r: Rng) => r.hex(40);

export interface OurOptions {
  iterations: number;
  stories: PlannedStory[];
  runner: Runner;
  huge: boolean;
}

function iteration(r: Rng, n: number, at: number, o: OurOptions): Record<string, unknown> {
  const story = o.stories.length && r.chance(0.9) ? r.pick(o.stories) : null;
  const span = r.weighted([
    [8, r.int(1_000, 3_600_000)],
    [1, 0],
    [1, -r.int(1_000, 600_000)],
  ] as const);
  const outcome = r.pick(OUTCOMES);
  const audit = r.chance(0.05);
  const it: Record<string, unknown> = {
    n,
    started: iso(r, at),
    ended: iso(r, at + span),
    done_check: r.chance(0.3),
    commits: Array.from(
      {
        length: r.weighted([
          [3, 0],
          [3, 1],
          [1, r.int(2, 6)],
        ] as const),
      },
      () => sha(r),
    ),
    tokens_used: count(r, o.huge),
    story_id: audit ? null : (story?.id ?? null),
    story_title: audit ? null : story ? (r.chance(0.9) ? story.title : text(r)) : null,
    attempt: r.weighted([
      [6, 1],
      [2, 2],
      [1, r.int(3, 12)],
    ] as const),
    outcome,
    reason: outcome === "complete" && r.chance(0.8) ? null : r.chance(0.7) ? text(r) : null,
    progress: r.chance(0.6),
    tokens: tokens(r, o.huge),
    cost_usd: r.chance(0.8) ? cost(r) : null,
    turns: r.chance(0.8) ? r.int(0, 300) : null,
    exit_code: r.weighted([
      [6, 0],
      [1, 1],
      [1, null],
      [1, -1],
      [1, 137],
    ] as const),
    log_file: `${WT}/.claude/logs/2026-11-21T10-00-00.000Z/iter-${String(n).padStart(3, "0")}.jsonl`,
  };
  if (r.chance(0.2)) it.model = r.pick(["opus", "sonnet", "gpt-5-codex", "gemini-2.5-pro", text(r)]);
  if (r.chance(0.1)) it.agent = r.pick(AGENTS);
  if (r.chance(0.4)) it.diff_file = `${WT}/.claude/logs/run/iter-${n}.diff`;
  if (r.chance(0.2))
    it.verify = {
      exit_code: r.pick([0, 1, null]),
      duration_ms: r.int(0, 600_000),
      timed_out: r.chance(0.2),
      log_file: `${WT}/.claude/logs/run/iter-${n}.verify.log`,
    };
  if (r.chance(0.2))
    it.review = {
      reviewer: r.pick(REVIEWERS),
      verdict: r.pick(["approve", "changes", "missing", "stopped", "unavailable"]),
      reason: r.chance(0.6) ? text(r) : null,
      runs: r.int(1, 2),
      tokens: tokens(r, o.huge),
      cost_usd: r.chance(0.7) ? cost(r) : null,
      duration_ms: r.int(0, 900_000),
      log_file: `${WT}/.claude/logs/run/iter-${n}.review.jsonl`,
      diff_file: `${WT}/.claude/logs/run/iter-${n}.review.diff`,
      put_back: r.chance(0.2) ? [plain(r, 1), text(r)] : [],
    };
  if (audit) {
    it.kind = "audit";
    it.audit = {
      round: r.int(1, 3),
      auditor: r.pick(REVIEWERS),
      verdict: r.pick(["pass", "gaps", "repeated", "missing", "stopped", "unavailable"]),
      gaps: Array.from({ length: r.int(0, 4) }, () => text(r)),
      story_id: r.chance(0.5) ? String(r.int(1, 40)) : null,
      reason: r.chance(0.4) ? text(r) : null,
      runs: r.int(1, 2),
      diff_file: `${WT}/.claude/logs/run/iter-${n}.audit.diff`,
      put_back: [],
    };
  }
  if (r.chance(0.08)) it.unavailable = { runs: r.int(1, 5), waited_ms: r.int(0, 8 * 3_600_000) };
  if (r.chance(0.03)) it.timed_out = r.chance(0.95); // the seed's field: our schema takes `true` only
  if (r.chance(0.05)) it.future_field = { nested: [1, "two", null] };
  return it;
}

function lanes(r: Rng, o: OurOptions, at: number): Record<string, unknown>[] {
  return Array.from({ length: r.int(1, 4) }, (_, i) => {
    const story = o.stories.length ? r.pick(o.stories) : { id: String(i + 1), title: plain(r) };
    return {
      story_id: story.id,
      story_title: story.title,
      iteration: o.iterations + i + 1,
      attempt: r.int(1, 3),
      status: r.pick(["opening", "running", "queued", "integrating", "closing"]),
      worktree: `/tmp/lanes/${r.hex(6)}`,
      branch: `wt-loop/lane/wt-${r.hex(8)}/${story.id}-1`,
      base: sha(r),
      agent_pid: r.chance(0.5) ? PID.dead : null,
      agent_started: r.chance(0.5) ? "123456" : null,
      started: iso(r, at + i * 60_000),
    };
  });
}

function runnerFields(o: OurOptions, r: Rng): Record<string, unknown> {
  switch (o.runner) {
    case "none":
      return { runner_pid: null, runner_started: null };
    case "own":
      return { runner_pid: PID.own, runner_started: PID.ownStarted };
    case "dead":
      return { runner_pid: PID.dead, runner_started: r.chance(0.8) ? String(r.int(1000, 9_999_999)) : null };
    case "foreign":
      return { runner_pid: PID.foreign, runner_started: PID.foreignStarted };
    case "foreign-wrong-start":
      return { runner_pid: PID.foreign, runner_started: "1" };
    case "pid1":
      return { runner_pid: 1, runner_started: "1" };
  }
}

/** A state of ours, as an object (key order is the schema's, as our writer leaves it). */
export function ourState(r: Rng, o: OurOptions): Record<string, unknown> {
  const status = r.pick(["starting", "running", "running", "paused", "done", "done", "stuck", "stalled", "stopped"] as const);
  const final = ["done", "stuck", "stalled", "stopped"].includes(status);
  const startMs = r.weighted([
    [8, T0],
    [1, NOW - r.int(0, 120_000)],
    [1, NOW + 3_600_000],
  ] as const);
  const gap = Math.max(1, Math.floor((26 * 3_600_000) / Math.max(1, o.iterations)));
  const iterations = Array.from({ length: o.iterations }, (_, i) => iteration(r, i + 1, startMs + i * gap, o));
  const endMs = startMs + o.iterations * gap;
  const parallel = r.weighted([
    [8, 1],
    [2, r.int(2, 4)],
  ] as const);
  const sum = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  for (const it of iterations) for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += (it.tokens as typeof sum)[k];
  const safe = (n: number) => (Number.isSafeInteger(n) ? n : MAX);
  const planned = o.stories.slice(0, r.chance(0.8) ? o.stories.length : r.int(0, o.stories.length));
  const current = o.stories.length ? r.pick(o.stories) : null;
  const s: Record<string, unknown> = {
    schema_version: SCHEMA_VERSION,
    worktree_name: "__WT_NAME__",
    worktree_path: WT,
    status,
    current_iteration: r.chance(0.9) ? o.iterations : r.int(0, o.iterations + 3),
    max_iterations: r.weighted([
      [3, Math.max(1, o.iterations)],
      [3, Math.max(1, o.iterations) + r.int(1, 30)],
      [1, 1],
      [1, 10_000],
    ] as const),
    started_at: iso(r, startMs),
    updated_at: iso(r, r.chance(0.9) ? endMs : startMs - 1000),
    ended_at: final && r.chance(0.9) ? iso(r, endMs) : r.chance(0.05) ? iso(r, endMs) : null,
    task: r.weighted([
      [5, plain(r, 8)],
      [3, text(r)],
      [1, long(r)],
    ] as const),
    iterations,
    done_criteria: r.chance(0.85) ? "tasks" : "manual",
    stall_threshold: r.int(1, 5),
    iteration_timeout_min: r.pick([45, 0.5, 1, 240]),
    total_tokens: r.chance(0.9) ? safe(sum.input + sum.output + sum.cache_read + sum.cache_creation) : count(r, o.huge),
    tokens: { input: safe(sum.input), output: safe(sum.output), cache_read: safe(sum.cache_read), cache_creation: safe(sum.cache_creation) },
    total_cost_usd: cost(r),
    max_retries: r.int(1, 5),
    command_timeout_sec: r.pick([30, 0.5, 600]),
    agent: r.pick(AGENTS),
    agent_cmd: r.chance(0.1) ? `my-agent --flag ${text(r)}` : null,
    model: r.chance(0.3) ? r.pick(["opus", "sonnet", text(r)]) : null,
    checkpoint: r.pick(["branch", "stash"]),
    on_complete: r.pick(["ask", "cleanup", "keep", "pr"]),
    terminal: r.pick(["inline", "auto", "tmux", "none"]),
    source: r.pick(["openspec", "tasks-file", "tasks-file", "manual", "issue"]),
    change: r.chance(0.3) ? r.pick(["add-login", "修复", plain(r, 1)]) : null,
    tasks_file: r.weighted([
      [8, `${WT}/tasks.md`],
      [1, null],
      [1, `${WT}/missing-tasks.md`],
    ] as const),
    github: null,
    issue: null,
    issue_sync: false,
    pull_request: null,
    issue_search: null,
    watch: r.chance(0.1),
    stories_total: r.chance(0.9) ? o.stories.length : r.int(0, 50),
    stories_completed: r.chance(0.9) ? o.stories.filter((x) => x.complete).length : r.int(0, 60),
    planned_stories: planned.map(({ id, title }) => ({ id, title })),
    current_story:
      current && (status === "running" || status === "paused" || r.chance(0.1))
        ? { id: current.id, title: current.title, index: r.int(1, Math.max(1, o.stories.length)), attempt: r.int(0, 6) }
        : null,
    ...runnerFields(o, r),
    agent_pid: o.runner === "own" && r.chance(0.3) ? PID.dead : r.chance(0.1) ? PID.foreign : null,
    agent_started: r.chance(0.3) ? "77777" : null,
    checkpoint_branch: r.chance(0.8) ? `ralph/${plain(r, 1)}` : null,
    original_branch: r.chance(0.8) ? "main" : null,
    original_commit: sha(r),
    checkpoint_sha: r.chance(0.8) ? sha(r) : null,
    completion: final ? r.pick(["keep", "cleanup", null]) : null,
    completion_message: final && r.chance(0.5) ? text(r) : null,
    completion_pending: final && r.chance(0.15),
    reason: final ? text(r) : r.chance(0.1) ? text(r) : null,
    error: r.chance(0.1) ? text(r) : null,
    notify: r.chance(0.1) ? "notify-send done" : null,
    verify: r.chance(0.3) ? "bun test" : null,
    verify_timeout_min: 10,
    review: r.chance(0.2) ? r.pick(REVIEWERS) : null,
    review_cmd: null,
    review_model: r.chance(0.1) ? "opus" : null,
    audit: r.chance(0.2),
    audit_agent: r.chance(0.1) ? r.pick(REVIEWERS) : null,
    audit_cmd: null,
    audit_model: null,
    audit_rounds: r.int(1, 4),
    escalate: r.chance(0.1) ? "sonnet,opus" : null,
    review_timeout_min: 15,
    max_wait_hours: 8,
    waiting: null,
    pause_requested: false,
    paused_since: null,
    paused_ms: r.chance(0.2) ? r.int(0, 7_200_000) : 0,
    notes: [],
    earlier_stories: [],
    parallel,
    lanes: parallel > 1 && !final ? lanes(r, o, startMs) : [],
  };
  decorate(r, s, o, { status, final, startMs, endMs });
  return s;
}

/** The fields only some loops have: a GitHub issue, a pull request, a budget, a wait, a pause, notes, earlier runs. */
function decorate(r: Rng, s: Record<string, unknown>, o: OurOptions, at: { status: string; final: boolean; startMs: number; endMs: number }): void {
  if (r.chance(0.15)) {
    const issues = Array.from({ length: r.int(1, 4) }, () => ({
      number: r.int(1, 99_999),
      title: text(r),
      url: `https://github.com/o/r/issues/${r.int(1, 999)}`,
    }));
    s.github = { host: r.pick(["github.com", "ghe.example.com:8443"]), repo: "owner/repo", issues, search: r.chance(0.3) ? "label:bug is:open" : null };
    s.issue = r.pick(["123", "owner/repo#123", "https://github.com/owner/repo/issues/123"]);
    s.issue_sync = r.chance(0.5);
    s.source = "issue";
  }
  if (r.chance(0.1))
    s.pull_request = { number: r.int(1, 9999), url: "https://github.com/owner/repo/pull/7", repo: "github.com/owner/repo", remote: "origin", pushed: sha(r) };
  if (r.chance(0.25)) {
    if (r.chance(0.7)) s.max_cost_usd = r.pick([0.01, 1, 5, 100, 1e9]);
    if (r.chance(0.6)) s.max_tokens = r.pick([1, 1000, 5_000_000, MAX]);
    if (r.chance(0.5)) s.spent_before = { cost_usd: cost(r), tokens: count(r, o.huge) };
    if (at.status === "stopped") s.stop_reason = r.pick(["budget", "user", null]);
  }
  if (at.status === "running" && r.chance(0.3))
    s.waiting = {
      ...(r.chance(0.3) ? { on: "pull_request" } : {}),
      reason: text(r),
      since: iso(r, NOW - r.int(0, 3_600_000)),
      until: iso(r, r.chance(0.8) ? NOW + r.int(0, 30 * 3_600_000) : NOW - 60_000),
    };
  if (at.status === "paused" || r.chance(0.05)) {
    s.paused_since = r.chance(0.8) ? iso(r, NOW - r.int(0, 86_400_000)) : null;
    s.pause_requested = r.chance(0.2);
  }
  if (at.status === "running" && r.chance(0.2)) s.pause_requested = true;
  if (r.chance(0.2)) s.notes = Array.from({ length: r.int(1, 4) }, () => ({ text: text(r), added_at: iso(r, NOW - r.int(0, 600_000)) }));
  if (r.chance(0.15))
    s.earlier_stories = Array.from({ length: r.int(1, 5) }, () => ({
      id: r.chance(0.9) ? (o.stories.length ? r.pick(o.stories).id : "1") : null,
      title: r.chance(0.9) ? text(r) : null,
      complete: r.chance(0.5),
      attempts: r.int(0, 9),
      duration_ms: r.int(0, 9_000_000),
      waited_ms: r.int(0, 100_000),
      agent: { tokens: count(r, o.huge), cost_usd: r.chance(0.8) ? cost(r) : null },
      reviewer: { tokens: 0, cost_usd: null },
      ...(r.chance(0.3)
        ? {
            models: [
              { model: "opus", attempts: 2, cost_usd: 1.5 },
              { model: null, agent: "codex", attempts: 1, cost_usd: null },
            ],
          }
        : {}),
    }));
  if (r.chance(0.1)) s.unchecked_story = o.stories.length ? r.pick(o.stories).id : "9";
  if (r.chance(0.1)) s.sandbox = true;
  if (r.chance(0.05)) s.sandbox_network = r.pick(["filtered", "open"]);
  if (r.chance(0.05)) s.user_work = { ref: "refs/wt-loop/wt-abc/before-x", commit: sha(r), paths: [plain(r, 1), text(r)], lost: r.chance(0.5) ? [] : null };
  if (r.chance(0.05)) s.held = { head: sha(r), branch: "refs/heads/main", full: sha(r), index: sha(r), by: r.pick(["auditor", "reviewer"]) };
  if (r.chance(0.05)) s.completing = r.pick(["keep", "cleanup"]);
  if (r.chance(0.05)) s.checkpoint_stashes = [sha(r)];
  if (r.chance(0.05)) s.commands_seal = r.hex(64);
}

/** Leaves out fields a state may lack (optional ones, and defaulted ones an older writer never wrote). */
export const DROPPABLE = [
  "github",
  "issue",
  "issue_sync",
  "pull_request",
  "issue_search",
  "watch",
  "planned_stories",
  "agent_started",
  "checkpoint_stashes",
  "user_work",
  "index_tree",
  "held",
  "completing",
  "completion_message",
  "completion_pending",
  "notify",
  "verify",
  "verify_timeout_min",
  "review",
  "review_cmd",
  "review_model",
  "audit",
  "audit_agent",
  "audit_cmd",
  "audit_model",
  "audit_rounds",
  "escalate",
  "review_timeout_min",
  "max_cost_usd",
  "max_tokens",
  "spent_before",
  "stop_reason",
  "unchecked_story",
  "commands_seal",
  "max_wait_hours",
  "sandbox",
  "sandbox_network",
  "waiting",
  "pause_requested",
  "paused_since",
  "paused_ms",
  "notes",
  "earlier_stories",
  "parallel",
  "lanes",
];
/** The fields every state has: a case leaves one out (the schema's required keys, in its order). */
export const REQUIRED = Object.keys(State.shape).filter((k) => !State.shape[k as keyof typeof State.shape].isOptional());
