/**
 * The receipt and the forecast (docs/receipt.md): what each story took and cost, and what the rest of
 * a running loop will likely take. Pure: State → Receipt. Durations are each iteration's own start to
 * end, never gaps between iterations: under `--parallel` iterations of different stories overlap.
 * No zod here (`status` start-up): the shape is record/receipt-schema.ts's, a test parses it with it.
 */
import type { AuditReceipt, Iteration, State, StoryReceipt } from "../state/schema.ts";
import type { Forecast, Receipt } from "./receipt-schema.ts";
import { reportsCost } from "./budget.ts";
import { iterationMs } from "../state/run-time.ts";

const RUNNING: readonly string[] = ["starting", "running", "paused"];

type Receiptable = Pick<State, "iterations" | "earlier_stories" | "agent" | "status" | "stories_total" | "stories_completed" | "parallel">;

export function receiptOf(s: Receiptable): Receipt {
  const stories = storiesOf(s);
  return { stories, audit: auditOf(s), forecast: RUNNING.includes(s.status) ? forecast(s, stories) : null };
}

/** The audit's iterations (`kind: "audit"`), summed apart: they are not attempts at a story. */
export function auditOf(s: Pick<Receiptable, "iterations" | "agent">): AuditReceipt | null {
  const audits = s.iterations.filter((i) => i.kind === "audit" && i.audit);
  if (!audits.length) return null;
  const out: AuditReceipt = { rounds: 0, gaps: 0, runs: 0, duration_ms: 0, tokens: 0, cost_usd: null, last: null };
  for (const it of audits) {
    const a = it.audit!;
    if (a.verdict === "pass" || a.verdict === "gaps" || a.verdict === "repeated") out.rounds++;
    out.gaps += a.verdict === "gaps" ? a.gaps.length : 0;
    out.runs += a.runs;
    out.duration_ms += Math.max(0, iterationMs(it));
    out.tokens += it.tokens_used;
    out.cost_usd = plus(out.cost_usd, it.cost_usd);
    out.last = a.verdict;
  }
  return out;
}

/** The earlier runs' lines first, then this run's iterations added story by story, in the order first worked on. */
export function storiesOf(s: Receiptable): StoryReceipt[] {
  const byId = new Map<string, StoryReceipt>();
  for (const e of s.earlier_stories ?? []) byId.set(e.id ?? "", clone(e));
  for (const it of s.iterations) {
    if (it.kind === "audit") continue; // apart: auditOf
    const key = it.story_id ?? "";
    let line = byId.get(key);
    if (!line) byId.set(key, (line = empty(it)));
    add(line, it, reportsCost(it.agent ?? s.agent));
  }
  return [...byId.values()];
}

const empty = (it: Iteration): StoryReceipt => ({
  id: it.story_id,
  title: it.story_title,
  complete: false,
  attempts: 0,
  duration_ms: 0,
  waited_ms: 0,
  agent: { tokens: 0, cost_usd: null },
  reviewer: { tokens: 0, cost_usd: null },
});
const clone = (e: StoryReceipt): StoryReceipt => ({
  ...e,
  agent: { ...e.agent },
  reviewer: { ...e.reviewer },
  ...(e.models ? { models: e.models.map((m) => ({ ...m })) } : {}),
});
const plus = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);

/** An iteration's tokens and cost include its review's (engine/gates/review.ts): the agent's share is the rest. */
function add(line: StoryReceipt, it: Iteration, agentReportsCost: boolean): void {
  line.attempts++;
  line.title = it.story_title ?? line.title;
  if (it.outcome === "complete") line.complete = true;
  line.duration_ms += Math.max(0, iterationMs(it));
  line.waited_ms += it.unavailable?.waited_ms ?? 0;
  const rTokens = it.review ? it.review.tokens.input + it.review.tokens.output + it.review.tokens.cache_read + it.review.tokens.cache_creation : 0;
  const rCost = it.review?.cost_usd ?? null;
  line.reviewer.tokens += rTokens;
  line.reviewer.cost_usd = plus(line.reviewer.cost_usd, rCost);
  line.agent.tokens += Math.max(0, it.tokens_used - rTokens);
  const agentCost = agentReportsCost && it.cost_usd !== null ? Math.max(0, it.cost_usd - (rCost ?? 0)) : null;
  line.agent.cost_usd = plus(line.agent.cost_usd, agentCost);
  if (it.model || it.agent) {
    const models = (line.models ??= []);
    const model = it.model ?? null;
    let m = models.find((x) => x.model === model && x.agent === it.agent);
    if (!m) models.push((m = { model, ...(it.agent ? { agent: it.agent } : {}), attempts: 0, cost_usd: null }));
    m.attempts++;
    m.cost_usd = plus(m.cost_usd, agentCost);
  }
}

/** A story's whole cost, agent and reviewer; null when neither reported one. */
export const storyCost = (l: StoryReceipt) => plus(l.agent.cost_usd, l.reviewer.cost_usd);

/**
 * The range: the remaining stories × the figure of the cheapest (quickest) and of the dearest
 * (slowest) story finished so far, all of its attempts included. With `--parallel N`, time is
 * divided by the lanes the remaining stories can fill (at most N).
 */
export function forecast(s: Pick<Receiptable, "stories_total" | "stories_completed" | "parallel">, stories: StoryReceipt[]): Forecast {
  const remaining = s.stories_total > 0 ? Math.max(0, s.stories_total - s.stories_completed) : null;
  const finished = stories.filter((l) => l.complete && l.id !== null);
  const range = (values: number[], per = 1) =>
    remaining === null || values.length === 0 ? null : { low: (Math.min(...values) * remaining) / per, high: (Math.max(...values) * remaining) / per };
  const lanes = Math.max(1, Math.min(s.parallel ?? 1, remaining ?? 1));
  return {
    remaining_stories: remaining,
    finished_stories: finished.length,
    time_ms: range(
      finished.map((l) => Math.max(0, l.duration_ms - l.waited_ms)),
      lanes,
    ),
    cost_usd: range(finished.map(storyCost).filter((c): c is number => c !== null)),
  };
}
