/**
 * A plain `wt-loop start` after a loop ended `stuck`, `stalled` or `stopped` continues it: the
 * previous run's remembered options (those marked `remembered` in setup/options.ts: the task, the
 * agent, the limits, the budgets…) are taken again, and any option given on the command line
 * overrides its remembered value. After `done` (or with no previous run) nothing is remembered.
 */
import type { State } from "../state/schema.ts";
import { FLAGS, formatValue, fromState, kebab } from "./option-table.ts";

const CONTINUES = ["stuck", "stalled", "stopped"] as const;

/** The options of `previous` in `LoopOptions` keys, or null when a new start does not continue it. */
export function rememberedOptions(previous: State | null): Record<string, unknown> | null {
  if (!previous || !(CONTINUES as readonly string[]).includes(previous.status)) return null;
  return fromState(previous);
}

/** The sentence a restart prints: the remembered options as flags, and the ones given instead. */
export function continuingNote(previous: State, remembered: Record<string, unknown>, given: Record<string, unknown>): string {
  const taken = FLAGS.filter((o) => o.key in remembered).map((o) => `--${o.flag} ${formatValue(remembered[o.key])}`);
  const overridden = Object.keys(given).filter((k) => k in remembered && given[k] !== remembered[k]);
  return (
    `Continuing the previous loop (${previous.status}) with its options: ${taken.join(" ")}.` +
    (overridden.length ? ` Given here instead: ${overridden.map((k) => `--${kebab(k)}`).join(", ")}.` : "")
  );
}
