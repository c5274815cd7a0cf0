/** The receipt as text: `status` and the end box (`Complete`) show it the same way (docs/receipt.md). */
import { storyCost } from "../loop/receipt.ts";
import type { Forecast } from "../loop/receipt-schema.ts";
import type { StoryReceipt } from "../state/schema.ts";
import { field, formatCost, formatDuration, formatTokens, plural, table } from "./format.ts";

/** One row per story: mark, id and title, attempts, time, tokens and cost (the reviewer's apart when one ran). */
export function receiptRows(stories: StoryReceipt[], width = 80): string[] {
  const titles = Math.max(20, Math.min(60, width - 60)); // the figures keep their room
  return table(
    stories.map((l) => [
      `${l.complete ? "✓" : "·"} ${field(l.id === null ? "(the task)" : `${l.id}. ${l.title ?? ""}`, titles)}`,
      plural(l.attempts, "attempt"),
      formatDuration(l.duration_ms),
      `${formatTokens(l.agent.tokens + l.reviewer.tokens)} tokens`,
      formatCost(storyCost(l)) +
        (l.reviewer.tokens || l.reviewer.cost_usd !== null ? ` (review: ${formatTokens(l.reviewer.tokens)} tokens, ${formatCost(l.reviewer.cost_usd)})` : ""),
    ]),
  ).split("\n").filter((r) => r !== "");
}

const span = (r: { low: number; high: number }, f: (n: number) => string) => (f(r.low) === f(r.high) ? `~${f(r.low)}` : `${f(r.low)}–${f(r.high)}`);

/** "3 stories left: 12m 00s–31m 10s, $1.20–$3.40 (from 2 finished stories)", or "no estimate yet". */
export function forecastText(f: Forecast): string {
  if (f.remaining_stories === null) return "no estimate (the loop has no story plan)";
  if (f.remaining_stories === 0) return "no story left";
  const left = `${plural(f.remaining_stories, "story", "stories")} left`;
  if (!f.time_ms) return `${left}: no estimate yet (no story has finished)`;
  const cost = f.cost_usd ? `, ${span(f.cost_usd, formatCost)}` : " (no cost reported)";
  return `${left}: ${span(f.time_ms, formatDuration)}${cost} (from ${plural(f.finished_stories, "finished story", "finished stories")})`;
}
