/**
 * The receipt `wt-loop status --json` adds under `receipt` (docs/receipt.md): the zod schema is the
 * source of truth for its shape and its field reference (`bun run schema`). record/receipt.ts builds
 * it without loading zod (`status` start-up), importing only the type.
 */
import { z } from "zod";
import { AuditReceipt, StoryReceipt } from "../state/schema.ts";
import { described } from "../state/described.ts";

const Range = z.object({
  low: described(z.number().nonnegative(), "the remaining stories at the cheapest (or quickest) finished story's figure each"),
  high: described(z.number().nonnegative(), "the remaining stories at the dearest (or slowest) finished story's figure each"),
});

export const Forecast = z.object({
  remaining_stories: described(
    z.number().int().nonnegative().nullable(),
    "stories not complete yet, the one under way included; null when the loop has no story plan (`--done manual`)",
  ),
  finished_stories: described(z.number().int().nonnegative(), "the complete stories of this loop the range is made from"),
  time_ms: described(
    Range.nullable(),
    "agent time the remaining stories will likely take (waits for an unavailable agent left out; " +
      "with `--parallel N` divided by the lanes that can run); null: no estimate yet",
  ),
  cost_usd: described(Range.nullable(), "what they will likely cost, agent and reviewer; null: no estimate yet, or no finished story reported a cost"),
});
export type Forecast = z.infer<typeof Forecast>;

export const Receipt = described(
  z.object({
    stories: described(z.array(StoryReceipt), "every story the loop worked on, in the order it first did, the earlier runs it continues included"),
    audit: described(AuditReceipt.nullable(), "`--audit` in this run: its rounds, gaps and cost, apart from the stories'; null when no audit ran"),
    forecast: described(
      Forecast.nullable(),
      "while the loop runs (or is paused or starting): the remaining stories' time and cost as a range; null once it has ended",
    ),
  }),
  "`wt-loop status --json` prints the state file with this added under `receipt`: what each story took and cost, and what the rest will likely take.",
);
export type Receipt = z.infer<typeof Receipt>;
