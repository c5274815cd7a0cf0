// The receipt is summed in one pass (`status` makes it at start-up, in the interpreter, for 500 iterations):
// it must be what it was, key order included (`status --json` prints it). The reference is record/receipt.ts as
// it was at c00c435, compared on generated loops: stories, reviews, audits, agents with and without a cost,
// models, waits, earlier runs' lines, times that are not times.
import { describe, expect, test } from "bun:test";
import { reportsCost } from "../../src/record/budget.ts";
import { auditOf, forecast, receiptOf, storiesOf } from "../../src/record/receipt.ts";
import { iterationMs } from "../../src/state/run-time.ts";
import type { AgentName, AuditReceipt, Iteration, State, StoryReceipt } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";
import { receiptRows } from "../../src/term/receipt-view.ts";
import { inertLine } from "../../src/term/inert.ts";
import { cells } from "../../src/text/width.ts";
import { formatCost, formatDuration, formatTokens, plural, table, truncate } from "../../src/text/format.ts";
import { storyCost } from "../../src/record/receipt.ts";
import { seeded } from "../helpers/seeded.ts";

/** term/receipt-view.ts receiptRows as it was at c00c435 (its callbacks: reduce, filter, flatMap). */
function receiptRowsBefore(stories: StoryReceipt[], width = 80, mark: (l: StoryReceipt) => string = (l) => (l.complete ? "✓" : "·")): string[] {
  const modelPart = (m: NonNullable<StoryReceipt["models"]>[number]) =>
    `${inertLine([m.agent, m.model].filter(Boolean).join(" "))} ×${m.attempts}${m.cost_usd === null ? "" : ` ${formatCost(m.cost_usd)}`}`;
  const label = (l: StoryReceipt, w: number) => truncate(inertLine((l.id === null ? "(the task)" : `${l.id}. ${l.title ?? ""}`).slice(0, w * 4)), w);
  const reviewPart = (l: StoryReceipt) =>
    l.reviewer.cost_usd !== null
      ? ` (review ${formatCost(l.reviewer.cost_usd)})`
      : l.reviewer.tokens
        ? ` (review ${formatTokens(l.reviewer.tokens)} tokens)`
        : "";
  const figures = stories.map((l) => [
    plural(l.attempts, "attempt"),
    formatDuration(l.duration_ms),
    `${formatTokens(l.agent.tokens + l.reviewer.tokens)} tokens`,
    formatCost(storyCost(l)) + reviewPart(l),
  ]);
  const room = figures[0]?.reduce((n, _, i) => n + 2 + Math.max(...figures.map((f) => cells(f[i]!))), 2) ?? 0;
  const titles = Math.max(12, Math.min(60, width - room));
  return table(stories.map((l, i) => [`${mark(l)} ${label(l, titles)}`, ...figures[i]!]))
    .split("\n")
    .filter((r) => r !== "")
    .flatMap((row, i) => {
      const models = stories[i]?.models;
      return models?.length ? [row, `    ${models.map(modelPart).join(" · ")}`] : [row];
    });
}

type Receiptable = Pick<State, "iterations" | "earlier_stories" | "agent" | "status" | "stories_total" | "stories_completed" | "parallel">;
const RUNNING: readonly string[] = ["starting", "running", "paused"];
const receiptBefore = (s: Receiptable) => {
  const stories = storiesBefore(s);
  return { stories, audit: auditBefore(s), forecast: RUNNING.includes(s.status) ? forecast(s, stories) : null };
};

/** The audit's iterations (`kind: "audit"`), summed apart: they are not attempts at a story. */
function auditBefore(s: Pick<Receiptable, "iterations" | "agent">): AuditReceipt | null {
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
function storiesBefore(s: Receiptable): StoryReceipt[] {
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

// The same data on every run (test/helpers/seeded.ts): an integer below n.
function random(seed: number) {
  const next = seeded(seed);
  return (n: number) => Math.floor(next() * n);
}

const AGENTS: AgentName[] = ["claude", "codex", "gemini", "command", "demo"];
const VERDICTS = ["pass", "gaps", "repeated", "missing", "stopped", "unavailable"] as const;
const pick = <T>(r: (n: number) => number, xs: readonly T[]) => xs[r(xs.length)]!;
const cost = (r: (n: number) => number) => (r(4) ? r(300) / 100 : null);

function iteration(r: (n: number) => number, n: number): Iteration {
  const audit = r(8) === 0;
  return sampleIteration(n, {
    story_id: audit || r(9) === 0 ? null : String(r(6)),
    story_title: r(5) ? `Story ${r(6)}` : null,
    outcome: r(3) ? "failed" : "complete",
    started: r(20) ? "2026-11-21T10:00:00.000Z" : "not a time",
    ended: pick(r, ["2026-11-21T10:01:05.000Z", "2026-11-21T09:00:00.000Z", "2026-11-22T10:00:00+01:00"]),
    tokens_used: r(3) ? r(100_000) : 0,
    cost_usd: cost(r),
    ...(r(3) === 0 ? { agent: pick(r, AGENTS) } : {}),
    ...(r(3) === 0 ? { model: r(4) ? pick(r, ["opus", "sonnet", "gpt-5"]) : null } : {}),
    ...(r(4) === 0 ? { unavailable: { runs: 1 + r(3), waited_ms: r(90_000) } } : {}),
    ...(r(4) === 0
      ? {
          review: {
            reviewer: "claude",
            verdict: "approve",
            reason: null,
            runs: 1,
            tokens: { input: r(500), output: r(500), cache_read: r(500), cache_creation: r(50) },
            cost_usd: cost(r),
            put_back: [],
          },
        }
      : {}),
    ...(audit
      ? {
          kind: "audit",
          ...(r(6)
            ? {
                audit: {
                  round: 1 + r(3),
                  auditor: "claude",
                  verdict: pick(r, VERDICTS),
                  gaps: Array.from({ length: r(3) }, () => "gap"),
                  story_id: null,
                  reason: null,
                  runs: 1 + r(2),
                  diff_file: "/d",
                  put_back: [],
                },
              }
            : {}),
        }
      : {}),
  } as Partial<Iteration>);
}

function earlier(r: (n: number) => number): StoryReceipt[] {
  return Array.from({ length: r(4) }, () => ({
    id: r(5) ? String(r(4)) : null, // ids repeat at times: the later line stands in the first one's place
    title: r(2) ? "Earlier" : null,
    complete: r(2) === 0,
    attempts: 1 + r(3),
    duration_ms: r(100_000),
    waited_ms: r(1000),
    agent: { tokens: r(1000), cost_usd: cost(r) },
    reviewer: { tokens: r(100), cost_usd: cost(r) },
    ...(r(2) ? { models: [{ model: "opus", agent: "claude" as AgentName, attempts: 1, cost_usd: cost(r) }] } : {}),
  }));
}

describe("the receipt in one pass", () => {
  test("is the receipt summed as before, key order included, on 500 generated loops", () => {
    const r = random(36);
    for (let t = 0; t < 500; t++) {
      const s = sampleState({
        agent: pick(r, AGENTS),
        status: pick(r, ["running", "done", "paused", "stuck"] as const),
        stories_total: r(8),
        stories_completed: r(4),
        parallel: 1 + r(3),
        earlier_stories: earlier(r),
        iterations: Array.from({ length: r(30) }, (_, k) => iteration(r, k + 1)),
      });
      const before = receiptBefore(s);
      expect(receiptOf(s)).toEqual(before);
      expect(JSON.stringify(receiptOf(s))).toBe(JSON.stringify(before));
      expect(JSON.stringify(storiesOf(s))).toBe(JSON.stringify(storiesBefore(s)));
      expect(JSON.stringify(auditOf(s))).toBe(JSON.stringify(auditBefore(s)));
      const width = 20 + r(120);
      expect(receiptRows(before.stories, width)).toEqual(receiptRowsBefore(before.stories, width));
    }
  });

  test("leaves the earlier runs' lines it starts from as they were", () => {
    const lines = earlier(random(7));
    const s = sampleState({ earlier_stories: lines, iterations: [sampleIteration(1, { story_id: lines[0]?.id ?? "1" })] });
    const copy = structuredClone(lines);
    receiptOf(s);
    expect(lines).toEqual(copy);
  });
});
