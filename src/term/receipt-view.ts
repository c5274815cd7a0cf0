/** The receipt as text: `status` and the end box (`Complete`) show it the same way (docs/receipt.md). */
import { storyCost } from "../record/receipt.ts";
import type { Forecast } from "../record/receipt-schema.ts";
import type { StoryReceipt } from "../state/schema.ts";

export { auditText } from "../record/audit-text.ts";
import { inertLine } from "./inert.ts";
import { cells } from "../text/width.ts";
import { truncate, formatCost, formatDuration, formatTokens, plural, table } from "../text/format.ts";

/**
 * One row per story: mark, id and title, attempts, time, tokens and cost (the reviewer's apart when one ran); under it the models asked for, when any was.
 * Plain loops: `status` makes these at start-up, where the first use of each of reduce, filter and flatMap
 * compiles that builtin (~0.1–0.3M instructions each, more than the 25 rows of the bench's loop).
 */
export function receiptRows(stories: StoryReceipt[], width = 80, mark: (l: StoryReceipt) => string = (l) => (l.complete ? "✓" : "·")): string[] {
  const figures: string[][] = [];
  for (const l of stories)
    figures.push([
      plural(l.attempts, "attempt"),
      formatDuration(l.duration_ms),
      `${formatTokens(l.agent.tokens + l.reviewer.tokens)} tokens`,
      formatCost(storyCost(l)) + reviewPart(l),
    ]);
  // The figures keep their room; the titles get the rest (the mark, and two spaces between columns).
  let room = 0;
  if (figures.length) {
    room = 2;
    for (let i = 0; i < figures[0]!.length; i++) {
      let widest = Number.NEGATIVE_INFINITY;
      for (const f of figures) widest = Math.max(widest, cells(f[i]!));
      room += 2 + widest;
    }
  }
  const titles = Math.max(12, Math.min(60, width - room));
  const rows: string[][] = [];
  for (let i = 0; i < stories.length; i++) rows.push([`${mark(stories[i]!)} ${label(stories[i]!, titles)}`, ...figures[i]!]);
  const out: string[] = [];
  let i = 0;
  for (const row of table(rows).split("\n")) {
    if (row === "") continue;
    const models = stories[i++]?.models;
    out.push(row);
    if (models?.length) {
      const parts: string[] = [];
      for (const m of models) parts.push(modelPart(m));
      out.push(`    ${parts.join(" · ")}`);
    }
  }
  return out;
}

/** "opus ×2 $0.40", "codex gpt-5 ×1": a model (and another agent) the story's attempts asked for, how many attempts, what the agent spent in them. */
const modelPart = (m: NonNullable<StoryReceipt["models"]>[number]) =>
  `${inertLine([m.agent, m.model].filter(Boolean).join(" "))} ×${m.attempts}${m.cost_usd === null ? "" : ` ${formatCost(m.cost_usd)}`}`;

/** "1. Setup", made inert (a title is the tasks file's) and cut to `width`: the figures after it keep their column. */
const label = (l: StoryReceipt, width: number) => truncate(inertLine((l.id === null ? "(the task)" : `${l.id}. ${l.title ?? ""}`).slice(0, width * 4)), width);

/** The reviewer's share, inside the story's figures: its cost, or its tokens when it reports no cost. */
function reviewPart(l: StoryReceipt): string {
  if (l.reviewer.cost_usd !== null) return ` (review ${formatCost(l.reviewer.cost_usd)})`;
  return l.reviewer.tokens ? ` (review ${formatTokens(l.reviewer.tokens)} tokens)` : "";
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
