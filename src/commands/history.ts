import { defineCommand } from "citty";
import type { Iteration } from "../state/schema.ts";
import { between, formatCost, formatDuration, formatTokens, table } from "../term/format.ts";
import { action, givenOptions } from "./_args.ts";
import { requireState } from "./_state.ts";

const args = { json: { type: "boolean", description: "Print the iterations and totals as JSON" } } as const;

export default defineCommand({
  meta: { name: "history", description: "One row per iteration of the loop, with totals" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("history", args, rawArgs, a);
    const { state } = await requireState();
    const totals = totalsOf(state.iterations);
    if (a.json) {
      console.log(JSON.stringify({ iterations: state.iterations, totals }, null, 2));
      return;
    }
    if (!state.iterations.length) {
      console.log(`No iterations yet (status: ${state.status}).`);
      return;
    }
    console.log(historyRows(state.iterations).join("\n"));
    console.log(
      `\nTotal: ${totals.iterations} iterations · ${formatDuration(totals.duration_ms)} · ${totals.commits} commits · ` +
        `${formatTokens(totals.tokens)} tokens · ${formatCost(totals.cost_usd)} · ${totals.timed_out} timed out`,
    );
  }),
});

export function totalsOf(its: Iteration[]) {
  return {
    iterations: its.length,
    duration_ms: its.reduce((a, i) => a + between(i.started, i.ended), 0),
    commits: its.reduce((a, i) => a + i.commits.length, 0),
    tokens: its.reduce((a, i) => a + i.tokens_used, 0),
    cost_usd: its.reduce((a, i) => a + (i.cost_usd ?? 0), 0),
    timed_out: its.filter((i) => i.timed_out).length,
  };
}

export function historyRows(its: Iteration[]): string[] {
  const head = ["#", "story", "attempt", "outcome", "start", "duration", "commits", "tokens", "cost", "timed out"];
  const rows = its.map((i) => [
    String(i.n),
    i.story_id ?? "-",
    String(i.attempt),
    i.outcome,
    i.started.slice(11, 19),
    formatDuration(between(i.started, i.ended)),
    String(i.commits.length),
    formatTokens(i.tokens_used),
    formatCost(i.cost_usd),
    i.timed_out ? "yes" : "no",
  ]);
  return table([head, ...rows]).split("\n");
}
