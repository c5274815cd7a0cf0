/** A loop's totals over its iterations: what `history` prints under its table and the MCP server returns. */
import type { Iteration } from "../state/schema.ts";
import { iterationMs, iterationMsOnce, someIterationMsKept } from "../state/run-time.ts";

export interface Totals {
  iterations: number;
  duration_ms: number;
  commits: number;
  tokens: number;
  cost_usd: number;
  timed_out: number;
  unavailable_runs: number;
  waited_ms: number;
}

/** One pass over the iterations (`history` sums 500 at start-up); `ms`: their durations, when the caller has them. */
export function totalsOf(its: Iteration[], ms?: readonly number[]): Totals {
  const t: Totals = { iterations: its.length, duration_ms: 0, commits: 0, tokens: 0, cost_usd: 0, timed_out: 0, unavailable_runs: 0, waited_ms: 0 };
  for (let k = 0; k < its.length; k++) {
    const i = its[k]!;
    t.duration_ms += ms ? ms[k]! : iterationMs(i);
    t.commits += i.commits.length;
    t.tokens += i.tokens_used;
    t.cost_usd += i.cost_usd ?? 0;
    if (i.timed_out) t.timed_out++;
    t.unavailable_runs += i.unavailable?.runs ?? 0;
    t.waited_ms += i.unavailable?.waited_ms ?? 0;
  }
  return t;
}

/**
 * `history`'s figures in one pass: the totals and each iteration's duration (in the iterations' order, for
 * the rows), none kept. At start-up the pass runs in the interpreter, where a property written costs several
 * times a local one and a call of ours (with its WeakMap lookup) more than the arithmetic: the sums are
 * locals, and the times are parsed here when no reader kept a figure (a fresh process: nothing to look up).
 */
export function totalsWithDurations(its: Iteration[]): { totals: Totals; ms: number[] } {
  const kept = someIterationMsKept();
  const ms: number[] = [];
  let duration = 0;
  let commits = 0;
  let tokens = 0;
  let cost = 0;
  let timedOut = 0;
  let runs = 0;
  let waited = 0;
  for (let k = 0; k < its.length; k++) {
    const i = its[k]!;
    const d = kept ? iterationMsOnce(i) : Date.parse(i.ended) - Date.parse(i.started);
    ms.push(d);
    duration += d;
    commits += i.commits.length;
    tokens += i.tokens_used;
    cost += i.cost_usd ?? 0;
    if (i.timed_out) timedOut++;
    const wait = i.unavailable;
    if (wait) {
      runs += wait.runs ?? 0;
      waited += wait.waited_ms ?? 0;
    }
  }
  const totals: Totals = {
    iterations: its.length,
    duration_ms: duration,
    commits,
    tokens,
    cost_usd: cost,
    timed_out: timedOut,
    unavailable_runs: runs,
    waited_ms: waited,
  };
  return { totals, ms };
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
