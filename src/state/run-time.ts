/**
 * What a state can say of its run time and its stories. A loop that reached its final status without
 * an `ended_at` (a state file written by wt-tools' bash wt-loop) does not know how long it ran: the
 * time since it started would count the days it has sat stopped. A plan of no stories is one nobody
 * could read (wt-loop's own plans have at least one story).
 */
import { isFinal } from "./final.ts";

interface Timed {
  status: string;
  started_at: string;
  ended_at: string | null;
  paused_ms?: number;
  paused_since?: string | null;
}

/** The time the loop spent paused (`wt-loop pause`), the pause under way included. */
export function pausedMs(s: Pick<Timed, "paused_ms" | "paused_since">, now = Date.now()): number {
  const current = s.paused_since ? Math.max(0, now - Date.parse(s.paused_since)) : 0;
  return (s.paused_ms ?? 0) + current;
}

/** How long the loop ran (so far, while it runs), its paused time left out; null when unknown. */
export function runTimeMs(s: Timed, now = Date.now()): number | null {
  if (s.ended_at) return Math.max(0, Date.parse(s.ended_at) - Date.parse(s.started_at) - pausedMs(s, Date.parse(s.ended_at)));
  if (isFinal(s.status)) return null;
  return Math.max(0, now - Date.parse(s.started_at) - pausedMs(s, now));
}

// An iteration's start to its end, parsed once per process: `history` sums them and lists them, the
// receipt sums them by story, and the seed's reader has just parsed them (a `Date.parse` is a few
// thousand instructions at start-up, and a state may hold 500 iterations). The strings are kept with
// the figure, so an iteration whose times were replaced is parsed again.
const spans = new WeakMap<object, { started: string; ended: string; ms: number }>();
let recorded = false;

/** Whether any figure was kept yet: a reader of a state no one parsed the times of can skip the lookups. */
export const someIterationMsKept = () => recorded;

/** How long iteration `i` took, from its start to its end (milliseconds; NaN for a time that is not one). */
export function iterationMs(i: { started: string; ended: string }): number {
  const known = spans.get(i);
  if (known && known.started === i.started && known.ended === i.ended) return known.ms;
  const ms = Date.parse(i.ended) - Date.parse(i.started);
  spans.set(i, { started: i.started, ended: i.ended, ms });
  recorded = true;
  return ms;
}

/**
 * iterationMs for a reader that reads each iteration once (the receipt): a figure already known is used,
 * none is kept — keeping one is an object and a WeakMap entry per iteration, 500 at `status`'s start-up.
 */
export function iterationMsOnce(i: { started: string; ended: string }): number {
  const known = spans.get(i);
  return known && known.started === i.started && known.ended === i.ended ? known.ms : Date.parse(i.ended) - Date.parse(i.started);
}

/**
 * Records what iterationMs(list[k]) is (`ms[k]`), for a reader that has parsed both times already (the
 * seed's): one call for the whole list, as a call an iteration is one more function to compile at start-up.
 */
export function knownIterationsMs(list: readonly { started: string; ended: string }[], ms: readonly number[]): void {
  for (let k = 0; k < list.length; k++) spans.set(list[k]!, { started: list[k]!.started, ended: list[k]!.ended, ms: ms[k]! });
  if (list.length) recorded = true;
}

export const storiesKnown = (s: { stories_total: number }) => s.stories_total > 0;
