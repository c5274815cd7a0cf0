/**
 * How long a finished loop's summary stays on the full screen (docs/terminals-and-notifications.md
 * "When nobody watches"). The loop is over and the worktree already free; the summary waits for a
 * key, but never for nobody: it goes on SIGINT or SIGTERM (`timeout`, systemd, `kill`), at once when
 * tmux says no client is attached, and by itself after END_WAIT_MS — by then the summary is in
 * `wt-loop status`, `log` and `history`, and the window it was in may be one nobody will look at.
 */
import { nobodyAttached } from "./attended.ts";

const END_WAIT_MS = 10 * 60_000;
/** Overrides END_WAIT_MS (in seconds): tests see the bound without waiting ten minutes. */
export const END_WAIT_VAR = "WT_LOOP_END_WAIT_SEC";

export function endWaitMs(env: Record<string, string | undefined>): number {
  const v = Number(env[END_WAIT_VAR]);
  return Number.isFinite(v) && v > 0 ? v * 1000 : END_WAIT_MS;
}

/** Why the wait ended: a key (or the terminal gone), a signal, nobody attached, the bound. */
export type EndLeft = "key" | "signal" | "nobody" | "bound";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Waits while the end summary shows, until `left` resolves (a key; the terminal gone) or one of the above. */
export async function waitAtEnd(left: Promise<unknown>, env: Record<string, string | undefined> = process.env): Promise<EndLeft> {
  const done = new AbortController();
  let onSignal = () => {};
  let bound: Timer | undefined;
  try {
    return await Promise.race<EndLeft>([
      left.then(() => "key" as const),
      new Promise<EndLeft>((resolve) => {
        onSignal = () => resolve("signal");
        for (const s of SIGNALS) process.on(s, onSignal);
      }),
      nobodyAttached(done.signal, env).then(() => "nobody" as const),
      new Promise<EndLeft>((resolve) => (bound = setTimeout(() => resolve("bound"), endWaitMs(env)))),
    ]);
  } finally {
    done.abort();
    clearTimeout(bound);
    for (const s of SIGNALS) process.off(s, onSignal);
  }
}
