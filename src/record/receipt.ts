/**
 * The receipt and the forecast (docs/receipt.md): what each story took and cost, and what the rest of
 * a running loop will likely take. Pure: State → Receipt. Durations are each iteration's own start to
 * end, never gaps between iterations: under `--parallel` iterations of different stories overlap.
 * No zod here (`status` start-up): the shape is record/receipt-schema.ts's, a test parses it with it.
 */
import type { AuditReceipt, Iteration, State, StoryReceipt } from "../state/schema.ts";
import type { Forecast, Receipt } from "./receipt-schema.ts";
import { reportsCost } from "./budget.ts";
import { iterationMsOnce, someIterationMsKept } from "../state/run-time.ts";
import { sumTokens } from "../state/tokens.ts";

const RUNNING: readonly string[] = ["starting", "running", "paused"];

type Receiptable = Pick<State, "iterations" | "earlier_stories" | "agent" | "status" | "stories_total" | "stories_completed" | "parallel">;

export function receiptOf(s: Receiptable): Receipt {
  const { stories, audit } = tally(s);
  return { stories, audit, forecast: RUNNING.includes(s.status) ? forecast(s, stories) : null };
}

/** The audit's iterations (`kind: "audit"`), summed apart: they are not attempts at a story. */
export const auditOf = (s: Pick<Receiptable, "iterations" | "agent">): AuditReceipt | null => tally({ ...s, earlier_stories: [] }).audit;

/** The earlier runs' lines first, then this run's iterations added story by story, in the order first worked on. */
export const storiesOf = (s: Receiptable): StoryReceipt[] => tally(s).stories;

/**
 * Both in one pass over the iterations, each added in place: `status` sums 500 of them at start-up, in
 * the interpreter, where every call and closure an iteration costs is paid 500 times (docs/performance.md).
 * An iteration's tokens and cost include its review's (engine/gates/review.ts): the agent's share is the rest.
 */
function tally(s: Pick<Receiptable, "iterations" | "earlier_stories" | "agent">): { stories: StoryReceipt[]; audit: AuditReceipt | null } {
  const byId = new Map<string, StoryReceipt>();
  const stories: StoryReceipt[] = []; // the map's lines in its order, without spreading its iterator at the end
  const line0 = (key: string, line: StoryReceipt) => {
    const was = byId.get(key);
    if (was)
      stories[stories.indexOf(was)] = line; // as Map.set: the later line, in the first one's place
    else stories.push(line);
    byId.set(key, line);
    return line;
  };
  for (const e of s.earlier_stories ?? []) line0(e.id ?? "", clone(e));
  let audit: AuditReceipt | null = null;
  let loopAgentCost: boolean | undefined; // asked at the first iteration that needs it, as before
  // A function called for every iteration is compiled at start-up, each at a cost: the duration and the
  // agent's cost are written out here, and the figures the seed's reader kept are looked up only when there are any.
  const kept = someIterationMsKept();
  const its = s.iterations;
  for (let k = 0; k < its.length; k++) {
    const it = its[k]!;
    if (it.kind === "audit") {
      const a = it.audit;
      if (!a) continue;
      audit ??= { rounds: 0, gaps: 0, runs: 0, duration_ms: 0, tokens: 0, cost_usd: null, last: null };
      if (a.verdict === "pass" || a.verdict === "gaps" || a.verdict === "repeated") audit.rounds++;
      audit.gaps += a.verdict === "gaps" ? a.gaps.length : 0;
      audit.runs += a.runs;
      audit.duration_ms += Math.max(0, iterationMsOnce(it));
      audit.tokens += it.tokens_used;
      audit.cost_usd = plus(audit.cost_usd, it.cost_usd);
      audit.last = a.verdict;
      continue;
    }
    const key = it.story_id ?? "";
    let line = byId.get(key);
    if (!line) line = line0(key, empty(it));
    line.attempts++;
    line.title = it.story_title ?? line.title;
    if (it.outcome === "complete") line.complete = true;
    line.duration_ms += Math.max(0, kept ? iterationMsOnce(it) : Date.parse(it.ended) - Date.parse(it.started));
    if (it.unavailable) line.waited_ms += it.unavailable.waited_ms ?? 0;
    const review = it.review;
    let rTokens = 0;
    let rCost: number | null = null;
    if (review) {
      rTokens = sumTokens(review.tokens);
      rCost = review.cost_usd ?? null;
      line.reviewer.tokens += rTokens;
      line.reviewer.cost_usd = plus(line.reviewer.cost_usd, rCost);
    }
    line.agent.tokens += Math.max(0, it.tokens_used - rTokens);
    const agentReportsCost = it.agent ? reportsCost(it.agent) : (loopAgentCost ??= reportsCost(s.agent));
    const agentCost = agentReportsCost && it.cost_usd !== null ? Math.max(0, it.cost_usd - (rCost ?? 0)) : null;
    if (agentCost !== null) line.agent.cost_usd = line.agent.cost_usd === null ? agentCost : line.agent.cost_usd + agentCost;
    if (it.model || it.agent) {
      const models = (line.models ??= []);
      const model = it.model ?? null;
      let m: (typeof models)[number] | undefined;
      for (let j = 0; j < models.length; j++)
        if (models[j]!.model === model && models[j]!.agent === it.agent) {
          m = models[j];
          break;
        }
      if (!m) models.push((m = it.agent ? { model, agent: it.agent, attempts: 0, cost_usd: null } : { model, attempts: 0, cost_usd: null }));
      m.attempts++;
      m.cost_usd = plus(m.cost_usd, agentCost);
    }
  }
  return { stories, audit };
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
