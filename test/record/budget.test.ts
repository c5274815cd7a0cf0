// Budgets (issue 12), the pure part: when a limit counts as reached, what the loop has spent over its
// runs, and how spent/limit reads in `status` and the status line while the loop runs.
import { describe, expect, test } from "bun:test";
import { budgetLabel, budgetReached, carriedFrom, spent } from "../../src/record/budget.ts";
import { renderStatus } from "../../src/term/status-view.ts";
import { statusLine } from "../../src/fleet/statusline.ts";
import { processStartTime } from "../../src/proc/pid.ts";
import { formatCost, formatTokens } from "../../src/text/format.ts";
import { sampleState } from "../helpers/state.ts";

describe("budgets", () => {
  test.each([
    // [cost this run, carried cost, limit, reached]
    [0.99, 0, 1, false],
    [1, 0, 1, true], // reaching the limit is enough: the next run could only overshoot it
    [0.5, 0.5, 1, true], // earlier runs of the loop count
    [0.4, 0.5, 1, false],
    [0.7 + 0.1, 0.2, 1, true], // a float sum a hair under the limit (0.9999999999999999) reaches it
    [0, 0, 1e-9, false], // a tiny limit is not reached by spending nothing
    [1e-9, 0, 1e-9, true],
  ] as const)("cost %p + %p carried of %p → reached %p", (cost, carried, limit, reached) => {
    const s = sampleState({ total_cost_usd: cost, spent_before: { cost_usd: carried, tokens: 0 }, max_cost_usd: limit });
    expect(budgetReached(s) !== null).toBe(reached);
  });

  test("tokens count all four kinds (total_tokens) and name their limit", () => {
    const s = sampleState({ total_tokens: 500, spent_before: { cost_usd: 0, tokens: 600 }, max_tokens: 1000 });
    expect(budgetReached(s)).toContain(`${formatTokens(1100)} of ${formatTokens(1000)} tokens`);
    expect(budgetReached(s)).toContain("--max-tokens");
    expect(budgetReached({ ...s, max_tokens: 1101 })).toBeNull();
  });

  test("a state without budget fields (written before budgets existed) has none and spends from zero", () => {
    const s = sampleState({ total_cost_usd: 3, total_tokens: 7 });
    expect(budgetReached(s)).toBeNull();
    expect(budgetLabel(s)).toBeNull();
    expect(spent(s)).toEqual({ cost_usd: 3, tokens: 7 });
  });

  test("a continuing run carries on everything the loop spent before; a new loop carries nothing", () => {
    const prev = sampleState({ status: "stopped", total_cost_usd: 2, total_tokens: 20, spent_before: { cost_usd: 1, tokens: 10 } });
    expect(carriedFrom(prev, true)).toEqual({ cost_usd: 3, tokens: 30 });
    expect(carriedFrom(prev, false)).toEqual({ cost_usd: 0, tokens: 0 });
    expect(carriedFrom(null, true)).toEqual({ cost_usd: 0, tokens: 0 });
  });

  test("status and the status line show spent/limit while the loop runs", () => {
    const s = sampleState({
      status: "running",
      runner_pid: process.pid,
      runner_started: processStartTime(process.pid),
      current_iteration: 3,
      current_story: { id: "2", title: "Build", index: 2, attempt: 1 },
      completion: null,
      total_cost_usd: 0.75,
      spent_before: { cost_usd: 0.25, tokens: 0 },
      max_cost_usd: 4,
      total_tokens: 1500,
      max_tokens: 10_000,
    });
    expect(statusLine(s)).toBe(`wt-loop 3/30 · story 2/2 · ${formatCost(1)}/${formatCost(4)} · ${formatTokens(1500)}/${formatTokens(10_000)} tokens`);
    expect(renderStatus(s)).toMatch(
      new RegExp(`Budget:\\s+\\${formatCost(1)} of \\${formatCost(4)} · ${formatTokens(1500)} of ${formatTokens(10_000)} tokens`),
    );
  });
});
