/** A loop's totals over its iterations: what `history` prints under its table and the MCP server returns. */
import type { Iteration } from "../state/schema.ts";
import { between } from "../text/format.ts";

export type Totals = ReturnType<typeof totalsOf>;

export function totalsOf(its: Iteration[]) {
  return {
    iterations: its.length,
    duration_ms: its.reduce((a, i) => a + between(i.started, i.ended), 0),
    commits: its.reduce((a, i) => a + i.commits.length, 0),
    tokens: its.reduce((a, i) => a + i.tokens_used, 0),
    cost_usd: its.reduce((a, i) => a + (i.cost_usd ?? 0), 0),
    timed_out: its.filter((i) => i.timed_out).length,
    unavailable_runs: its.reduce((a, i) => a + (i.unavailable?.runs ?? 0), 0),
    waited_ms: its.reduce((a, i) => a + (i.unavailable?.waited_ms ?? 0), 0),
  };
}

/**
 * The time the iterations ran, overlaps counted once (the union of their spans): below the total's
 * `duration_ms` when lanes (`--parallel`) ran side by side.
 */
export function wallMs(its: Iteration[]): number {
  const spans = its.map((i) => [Date.parse(i.started), Date.parse(i.ended)] as const).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of spans) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}
