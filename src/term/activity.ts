/**
 * A quiet agent looks like a hung one. On a terminal, while an iteration runs and nothing has been
 * printed for a second, one status line shows how long the iteration has been running; it is
 * redrawn at most once a second and erased before anything else is printed. Not on a pipe or file:
 * a log must not fill with carriage returns.
 */
import type { LoopEvent } from "../record/events.ts";
import { clockTime, formatDuration } from "../text/format.ts";

export interface Out {
  isTTY?: boolean;
  write(s: string): unknown;
}

export interface Activity {
  /** Write through this, so the status line is erased first. */
  out: Out;
  event(e: LoopEvent): void;
  dispose(): void;
}

export function activityLine(out: Out, o: { now?: () => number; everyMs?: number } = {}): Activity {
  if (!out.isTTY) return { out, event() {}, dispose() {} };
  const now = o.now ?? Date.now;
  const every = o.everyMs ?? 1000;
  let since: number | null = null;
  let lastWrite = now();
  let shown = false;
  let waitUntil: number | null = null; // a wait on an unavailable agent: a countdown instead
  const clear = () => {
    if (!shown) return;
    shown = false;
    out.write("\r\x1b[2K");
  };
  const tick = () => {
    if (waitUntil !== null) {
      clear();
      out.write(
        `  ⏸ waiting for the agent · ${formatDuration(Math.max(0, waitUntil - now()))} left, ` +
          `until ${clockTime(waitUntil, now())} · \`wt-loop stop\` ends the wait`,
      );
      shown = true;
      return;
    }
    if (since === null || now() - lastWrite < every) return;
    clear();
    out.write(`  … the agent is working · ${formatDuration(now() - since)} into this iteration`);
    shown = true;
  };
  const timer = setInterval(tick, every);
  timer.unref?.();
  return {
    out: {
      isTTY: true,
      write(s: string) {
        clear();
        lastWrite = now();
        return out.write(s);
      },
    },
    event(e) {
      waitUntil = e.type === "Waiting" ? Date.parse(e.until) : null;
      if (e.type === "StoryProgress") since = now();
      else if (e.type === "IterationEnd" || e.type === "Complete") {
        since = null;
        clear();
      }
    },
    dispose() {
      clearInterval(timer);
      clear();
    },
  };
}
