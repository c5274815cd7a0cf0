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
}

/** How long the loop ran (so far, while it runs); null when unknown. */
export function runTimeMs(s: Timed, now = Date.now()): number | null {
  if (s.ended_at) return Math.max(0, Date.parse(s.ended_at) - Date.parse(s.started_at));
  if (isFinal(s.status)) return null;
  return Math.max(0, now - Date.parse(s.started_at));
}

export const storiesKnown = (s: { stories_total: number }) => s.stories_total > 0;
