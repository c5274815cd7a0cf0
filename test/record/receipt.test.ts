// The receipt and forecast (record/receipt.ts, docs/receipt.md): a fixed history gives a fixed receipt and range.
import { describe, expect, test } from "bun:test";
import { receiptOf, storiesOf } from "../../src/record/receipt.ts";
import { Receipt } from "../../src/record/receipt-schema.ts";
import { forecastText, receiptRows } from "../../src/term/receipt-view.ts";
import { renderStatus } from "../../src/term/status-view.ts";
import { renderEvent } from "../../src/term/render.ts";
import { ZERO_TOKENS, type Iteration } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

const at = (min: number) => new Date(Date.parse("2026-11-21T10:00:00.000Z") + min * 60_000).toISOString();
/** An iteration of `story` from minute `from` to minute `to`. */
const it = (n: number, story: string, attempt: number, from: number, to: number, over: Partial<Iteration> = {}) =>
  sampleIteration(n, {
    story_id: story,
    story_title: `Story ${story}`,
    attempt,
    started: at(from),
    ended: at(to),
    tokens_used: 1000,
    cost_usd: 1,
    outcome: "failed",
    ...over,
  });

// Story 1: two attempts (2 + 4 min, $1 + $1), the second accepted. Story 2: one attempt of 10 min, $3,
// of which a review of 200 tokens and $0.50. Story 3: one failed attempt so far.
const HISTORY = [
  it(1, "1", 1, 0, 2),
  it(2, "1", 2, 2, 6, { outcome: "complete" }),
  it(3, "2", 1, 6, 16, {
    outcome: "complete",
    cost_usd: 3,
    tokens_used: 1200,
    review: {
      reviewer: "claude",
      verdict: "approve",
      reason: null,
      runs: 1,
      tokens: { ...ZERO_TOKENS, input: 200 },
      cost_usd: 0.5,
      duration_ms: 1000,
      log_file: "/r",
      diff_file: "/d",
      put_back: [],
    },
  }),
  it(4, "3", 1, 16, 17),
];
const running = (over = {}) => sampleState({ status: "running", ended_at: null, iterations: HISTORY, stories_total: 5, stories_completed: 2, ...over });

describe("the receipt", () => {
  test("lists every story with its attempts, time, tokens and cost, the reviewer's apart", () => {
    const r = receiptOf(running());
    expect(Receipt.parse(r)).toEqual(r); // the documented shape
    expect(r.stories.map((s) => [s.id, s.complete, s.attempts, s.duration_ms / 60_000])).toEqual([
      ["1", true, 2, 6],
      ["2", true, 1, 10],
      ["3", false, 1, 1],
    ]);
    expect(r.stories[1]!.agent).toEqual({ tokens: 1000, cost_usd: 2.5 });
    expect(r.stories[1]!.reviewer).toEqual({ tokens: 200, cost_usd: 0.5 });
    expect(r.stories[0]!.reviewer).toEqual({ tokens: 0, cost_usd: null });
  });

  test("a fixed history gives a fixed range: remaining × the cheapest and the dearest finished story", () => {
    const f = receiptOf(running()).forecast!;
    // 3 stories left; finished: story 1 took 6 min and $2, story 2 took 10 min and $3.
    expect(f).toEqual({ remaining_stories: 3, finished_stories: 2, time_ms: { low: 18 * 60_000, high: 30 * 60_000 }, cost_usd: { low: 6, high: 9 } });
    expect(forecastText(f)).toBe("3 stories left: 18m 00s–30m 00s, $6.00–$9.00 (from 2 finished stories)");
  });

  test("no estimate before the first story ends; none once the loop has ended", () => {
    const first = receiptOf(running({ iterations: [HISTORY[0]], stories_completed: 0 })).forecast!;
    expect(first).toEqual({ remaining_stories: 5, finished_stories: 0, time_ms: null, cost_usd: null });
    expect(forecastText(first)).toBe("5 stories left: no estimate yet (no story has finished)");
    expect(receiptOf(running({ status: "stopped" })).forecast).toBeNull();
  });

  test("durations are each iteration's own: lanes that overlap in time count in full, waits are left out of the forecast", () => {
    // Two stories at the same time in two lanes (0–10 and 1–11), the second waited 4 min for its agent.
    const lanes = [
      it(1, "1", 1, 0, 10, { outcome: "complete" }),
      it(2, "2", 1, 1, 11, { outcome: "complete", unavailable: { runs: 1, waited_ms: 4 * 60_000 } }),
    ];
    const r = receiptOf(running({ iterations: lanes, parallel: 2, stories_total: 6 }));
    expect(r.stories.map((s) => s.duration_ms / 60_000)).toEqual([10, 10]);
    // 4 left, at 6..10 min each, over 2 lanes.
    expect(r.forecast!.time_ms).toEqual({ low: 12 * 60_000, high: 20 * 60_000 });
  });

  test("an agent that reports no cost: none is made up, and the forecast says so", () => {
    const r = receiptOf(running({ agent: "codex", iterations: HISTORY.map((i) => ({ ...i, cost_usd: null, review: undefined })) }));
    expect(r.stories[0]!.agent.cost_usd).toBeNull();
    expect(r.forecast!.cost_usd).toBeNull();
    expect(forecastText(r.forecast!)).toContain("(no cost reported)");
  });

  test("per story, each model and agent its attempts asked for; an agent's cost counts as that agent reports it", () => {
    // A codex loop: story 1 climbs sonnet -> opus on a story that names claude; story 2 runs codex with its own model.
    const runs = [
      it(1, "1", 1, 0, 2, { agent: "claude", model: "sonnet", cost_usd: 1 }),
      it(2, "1", 2, 2, 6, { agent: "claude", model: "opus", cost_usd: 4, outcome: "complete" }),
      it(3, "2", 1, 6, 8, { cost_usd: null, outcome: "complete" }),
      it(4, "3", 1, 8, 9, { model: "gpt-5", cost_usd: null }),
    ];
    const r = receiptOf(running({ agent: "codex", iterations: runs, stories_total: 4, stories_completed: 2 }));
    expect(Receipt.parse(r)).toEqual(r);
    expect(r.stories[0]!.models).toEqual([
      { model: "sonnet", agent: "claude", attempts: 1, cost_usd: 1 },
      { model: "opus", agent: "claude", attempts: 1, cost_usd: 4 },
    ]);
    expect(r.stories[0]!.agent.cost_usd).toBe(5); // claude reports its cost, though the loop's codex does not
    expect(r.stories[1]!.models).toBeUndefined();
    expect(r.stories[2]!.models).toEqual([{ model: "gpt-5", attempts: 1, cost_usd: null }]);
    expect(receiptRows(r.stories, 100)[1]).toBe("    claude sonnet ×1 $1.00 · claude opus ×1 $4.00");
  });

  test("the forecast prices the models in use: a heading's model, and an escalated story's whole climb", () => {
    // Story 1 names a cheap model ($0.80); story 2 climbed sonnet ($0.60, failed) -> opus ($4.00). Two stories left.
    const runs = [
      it(1, "1", 1, 0, 2, { model: "haiku", cost_usd: 0.8, outcome: "complete" }),
      it(2, "2", 1, 2, 3, { model: "sonnet", cost_usd: 0.6 }),
      it(3, "2", 2, 3, 6, { model: "opus", cost_usd: 4, outcome: "complete" }),
    ];
    const f = receiptOf(running({ iterations: runs, stories_total: 4, stories_completed: 2 })).forecast!;
    // Low: two more stories like the haiku one; high: two more that climb to opus as story 2 did, its failed sonnet attempt included.
    expect(f.cost_usd!.low).toBeCloseTo(2 * 0.8, 9);
    expect(f.cost_usd!.high).toBeCloseTo(2 * (0.6 + 4), 9);
    // Had story 2 passed at once on sonnet, its figure would be that one attempt's: the forecast follows what ran.
    const once = [runs[0]!, { ...runs[2]!, attempt: 1, model: "sonnet", cost_usd: 0.6 }];
    const flat = receiptOf(running({ iterations: once, stories_total: 4, stories_completed: 2 })).forecast!;
    expect(flat.cost_usd!.low).toBeCloseTo(2 * 0.6, 9);
    expect(flat.cost_usd!.high).toBeCloseTo(2 * 0.8, 9);
  });

  test("the earlier runs a restart continues count: attempts add up per story", () => {
    const earlier = storiesOf(running({ iterations: HISTORY.slice(0, 1) })); // story 1, one failed attempt
    const r = receiptOf(running({ earlier_stories: earlier, iterations: [it(1, "1", 1, 30, 33, { outcome: "complete" })] }));
    expect(r.stories.map((s) => [s.id, s.attempts, s.complete, s.duration_ms / 60_000, s.agent.cost_usd])).toEqual([["1", 2, true, 5, 2]]);
  });

  test("status shows the stories and, while the loop runs, the forecast", () => {
    const text = renderStatus(running(), Date.parse(at(20)), 120);
    expect(text).toMatch(/Forecast:\s+3 stories left: 18m 00s–30m 00s, \$6\.00–\$9\.00/);
    expect(text).toMatch(/✓ 1\. Story 1\s+2 attempts\s+6m 00s\s+2,000 tokens\s+\$2\.00/);
    expect(text).toMatch(/✓ 2\. Story 2\s+1 attempt\s+10m 00s\s+1,200 tokens\s+\$3\.00 \(review \$0\.50\)/);
    expect(text).toMatch(/· 3\. Story 3/);
    expect(renderStatus(running({ status: "done" }))).not.toContain("Forecast:");
    expect(receiptRows([])).toEqual([]);
  });

  test("the end box shows the receipt, one unwrapped row per story, at 80 columns too", () => {
    const complete = {
      type: "Complete" as const,
      status: "done" as const,
      reason: "Every story is complete.",
      stories_completed: 3,
      stories_total: 3,
      iterations: 4,
      total_tokens: 4200,
      total_cost_usd: 6,
      duration_ms: 17 * 60_000,
      branch: "ralph/wt",
      completion: "keep" as const,
      stories: receiptOf(running()).stories,
    };
    for (const width of [80, 140]) {
      const box = renderEvent(complete, { color: false, width });
      const rows = box.filter((l) => /[✓·] \d\. Story/.test(l));
      expect(rows).toHaveLength(3);
      expect(rows[1]).toMatch(/✓ 2\. Story 2\s+1 attempt\s+10m 00s\s+1,200 tokens\s+\$3\.00 \(review \$0\.50\)\s+│$/);
      expect(Math.max(...box.map((l) => l.length))).toBeLessThanOrEqual(width);
    }
  });
});
