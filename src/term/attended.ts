/**
 * Whether anybody can be at this terminal (docs/terminals-and-notifications.md "When nobody
 * watches"). Only tmux can tell: a pane whose session has no client attached (the detached session
 * `start` opens on a machine without a display, or one the user detached from) is watched by nobody.
 * Anywhere else it is not known, and a person is assumed — the callers bound their waits instead.
 */
import { exec } from "../proc/spawn.ts";

/** How often a wait asks tmux again (a client may detach while the summary or the question shows). */
export const ATTENDANCE_POLL_MS = 2000;

/** This process runs in a tmux pane (tmux sets both in the pane's environment). */
const inTmux = (env: Record<string, string | undefined>) => Boolean(env.TMUX && env.TMUX_PANE);

/** True: a client is attached; false: nobody is (tmux says so); null: not known (not in tmux, or tmux did not answer). */
export async function attended(env: Record<string, string | undefined> = process.env): Promise<boolean | null> {
  if (!inTmux(env)) return null;
  // `tmux` finds the server of this pane through $TMUX.
  const r = await exec(["tmux", "display-message", "-p", "-t", env.TMUX_PANE!, "#{session_attached}"], {
    cwd: "/",
    env,
    timeoutMs: 3000,
    allowFailure: true,
  }).catch(() => null);
  if (!r || r.code !== 0) return null;
  const n = Number(r.stdout.trim());
  return r.stdout.trim() !== "" && Number.isInteger(n) ? n > 0 : null;
}

/**
 * Resolves once tmux says nobody is attached (asked now, then every ATTENDANCE_POLL_MS); never
 * outside tmux. Stops asking when `signal` aborts.
 */
export function nobodyAttached(signal: AbortSignal, env: Record<string, string | undefined> = process.env): Promise<void> {
  return new Promise((resolve) => {
    if (!inTmux(env)) return;
    let timer: Timer | undefined;
    const ask = async () => {
      if (signal.aborted) return;
      const a = await attended(env);
      if (signal.aborted) return;
      if (a === false) return resolve();
      // Attached, or tmux did not answer this time (a person is assumed): asked again later.
      timer = setTimeout(ask, ATTENDANCE_POLL_MS);
      timer.unref?.();
    };
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    void ask();
  });
}
