/**
 * Budgets (docs/verify-and-budgets.md): `--max-cost USD` and `--max-tokens N` for the whole loop — its earlier runs
 * included, when a restart after `stuck`, `stalled` or `stopped` continues it. Checked after every
 * iteration; once spending reaches a limit the loop ends `stopped` with the reason `budget`.
 */
import { UserError } from "../errors.ts";
import type { AgentName, State } from "../state/schema.ts";
import { formatCost, formatTokens } from "../text/format.ts";

/** What each agent reports (docs/agents.md): a budget needs the figure it counts. */
const REPORTS: Record<AgentName, { cost: boolean; tokens: boolean }> = {
  claude: { cost: true, tokens: true },
  codex: { cost: false, tokens: true },
  gemini: { cost: false, tokens: true },
  command: { cost: false, tokens: false },
  demo: { cost: false, tokens: true },
};

/** Whether `agent` reports its cost: a null cost from one that does not is "none reported", not $0. */
export const reportsCost = (agent: AgentName) => REPORTS[agent].cost;

/** A budget the agent cannot measure would never be reached: refused before anything is written. */
export function refuseUnmeasurable(agent: AgentName, opts: { maxCost?: number; maxTokens?: number }): void {
  const r = REPORTS[agent];
  if (opts.maxCost !== undefined && !r.cost)
    throw new UserError(
      `--max-cost needs an agent that reports its cost; ${agent} reports none, so the budget could never be reached. ` +
        (r.tokens ? "Use --max-tokens instead. " : "") +
        "Nothing was written.",
    );
  if (opts.maxTokens !== undefined && !r.tokens)
    throw new UserError(`--max-tokens needs an agent that reports its tokens; ${agent} reports none. Nothing was written.`);
}

/**
 * Costs are sums of floats: $0.70 + $0.10 + $0.20 must reach a $1.00 limit, so within a millionth
 * of the limit counts (relative: a tiny limit is not reached by spending nothing).
 */
const reaches = (value: number, limit: number | null | undefined) => limit != null && value > 0 && value >= limit * (1 - 1e-6);

type Budgeted = Pick<State, "total_cost_usd" | "total_tokens" | "spent_before" | "max_cost_usd" | "max_tokens">;

/** What the whole loop has spent: this run and the earlier runs it continues. */
export const spent = (s: Budgeted) => ({
  cost_usd: (s.spent_before?.cost_usd ?? 0) + s.total_cost_usd,
  tokens: (s.spent_before?.tokens ?? 0) + s.total_tokens,
});

/** What a new run carries on from `previous` when it continues that loop (`continues`), else nothing. */
export const carriedFrom = (previous: State | null, continues: boolean) => (previous && continues ? spent(previous) : { cost_usd: 0, tokens: 0 });

/** "$1.50 of $1.20 · 380 of 10,000 tokens": spent of each limit set; null when none is. */
export function budgetLabel(s: Budgeted): string | null {
  if (!s.max_cost_usd && !s.max_tokens) return null; // most loops: `status` asks at start-up
  const now = spent(s);
  const cost = s.max_cost_usd ? `${formatCost(now.cost_usd)} of ${formatCost(s.max_cost_usd)}` : null;
  const tokens = s.max_tokens ? `${formatTokens(now.tokens)} of ${formatTokens(s.max_tokens)} tokens` : null;
  return cost && tokens ? `${cost} · ${tokens}` : (cost ?? tokens);
}

/** Why the loop must stop now (a limit is reached: spent ≥ limit), or null. */
export function budgetReached(s: Budgeted): string | null {
  const now = spent(s);
  const cost = reaches(now.cost_usd, s.max_cost_usd);
  const tokens = reaches(now.tokens, s.max_tokens);
  if (!cost && !tokens) return null;
  const raise = [cost ? "--max-cost" : null, tokens ? "--max-tokens" : null].filter(Boolean).join(" and ");
  return `Budget reached: ${budgetLabel(s)} (all runs of this loop). \`wt-loop start\` with a higher ${raise} continues`;
}

/** A continued loop whose budget is already spent would stop at once: refused, saying what to raise. */
export function refuseSpent(s: Budgeted): void {
  const now = spent(s);
  const over = [
    reaches(now.cost_usd, s.max_cost_usd) ? ["--max-cost", `${formatCost(now.cost_usd)} of its --max-cost ${formatCost(s.max_cost_usd!)}`] : null,
    reaches(now.tokens, s.max_tokens) ? ["--max-tokens", `${formatTokens(now.tokens)} tokens of its --max-tokens ${formatTokens(s.max_tokens!)}`] : null,
  ].filter((o) => o !== null);
  if (!over.length) return;
  throw new UserError(
    `This loop has spent ${over.map(([, t]) => t).join(" and ")} over its runs: its budget is used up. ` +
      `Give a higher budget to continue (\`wt-loop start ${over.map(([o]) => `${o} N`).join(" ")}\`). Nothing was written.`,
  );
}
