// `status` asks every loop for its budget's label at start-up; most loops have none, so the label is now made
// without an array and its `filter` (the first use of a callback builtin is ~0.2M instructions interpreted).
// It must read as it did: the reference is budgetLabel as it was at 775262e.
import { describe, expect, test } from "bun:test";
import { budgetLabel, spent } from "../../src/record/budget.ts";
import { formatCost, formatTokens } from "../../src/text/format.ts";
import { sampleState } from "../helpers/state.ts";

function budgetLabelBefore(s: Parameters<typeof budgetLabel>[0]): string | null {
  const now = spent(s);
  const parts = [
    s.max_cost_usd ? `${formatCost(now.cost_usd)} of ${formatCost(s.max_cost_usd)}` : null,
    s.max_tokens ? `${formatTokens(now.tokens)} of ${formatTokens(s.max_tokens)} tokens` : null,
  ].filter((p) => p !== null);
  return parts.length ? parts.join(" · ") : null;
}

describe("budgetLabel", () => {
  test("reads as before for every kind of limit, spent and carried", () => {
    let labels = 0;
    for (const max_cost_usd of [undefined, null, 0, 0.004, 1.2, 40])
      for (const max_tokens of [undefined, null, 0, 1, 10_000, 2_500_000])
        for (const spent_before of [undefined, { cost_usd: 0.5, tokens: 1200 }])
          for (const [total_cost_usd, total_tokens] of [
            [0, 0],
            [1.5, 380],
            [0.001, 1_234_567],
          ] as const) {
            const s = sampleState({ max_cost_usd, max_tokens, spent_before, total_cost_usd, total_tokens });
            expect(budgetLabel(s)).toBe(budgetLabelBefore(s));
            if (budgetLabel(s)) labels++;
          }
    expect(labels).toBeGreaterThan(100);
  });
});
