/**
 * Stopping `run` (docs/how-it-works.md). Every stop request — `q` or Ctrl-C in the terminal, SIGINT or SIGTERM
 * (what `wt-loop stop` sends) — is one "press": the first stops the loop gracefully; if it has not
 * finished 5 s later the user is told to press q twice more to force it; three presses within 3 s
 * force-quit at once (each press says how many more are needed), and so does a second signal. A signal (SIGINT or SIGTERM: keep, SIGUSR2:
 * cleanup, what `wt-loop stop [--cleanup]` sends) comes from outside the window, so it also answers
 * the completion question, since nobody may be at this window to answer it. So does the terminal
 * going away (term/hangup.ts): nobody is left to answer.
 */
import type { Completion } from "../state/schema.ts";

/** Three presses within this force-quit (the screen's key help says so from it). */
export const FORCE_WINDOW_MS = 3000;
const SLOW_STOP_MS = 5000;
/** Overrides the 5 s before the slow-stop hint (in ms): tests see the hint, or its absence, without waiting 5 s. */
export const SLOW_STOP_VAR = "WT_LOOP_SLOW_STOP_MS";

export function slowStopMs(env: Record<string, string | undefined>): number {
  const v = Number(env[SLOW_STOP_VAR]);
  return Number.isFinite(v) && v > 0 ? v : SLOW_STOP_MS;
}

/** The signal `wt-loop stop` sends for each answer to the completion question. */
export const ANSWER_SIGNALS = { keep: "SIGTERM", cleanup: "SIGUSR2" } as const satisfies Record<Completion, NodeJS.Signals>;

export interface StopControl {
  /** One stop request (a key press or a signal). */
  press(source: string): void;
  /** The terminal went away: a stop that answers keep, as an unattended question is answered. */
  hangUp(source: string): void;
  /** A force-quit asked for at once (a view's own force key), without the three presses. */
  force(): void;
  /** The completion answer a remote stop gave, or null. */
  readonly answer: Completion | null;
  /** Resolves with the answer of the first remote stop request (now or later). */
  answered(): Promise<Completion>;
  /** The loop ended and its question waits: no more "still stopping" hints; presses no longer count. */
  settle(): void;
  dispose(): void;
}

export function stopControl(opts: {
  controller: AbortController;
  /** Kills the agent and records what it can, synchronously: the process exits right after. */
  forceQuit: () => void;
  say: (message: string) => void;
  exit?: (code: number) => never;
}): StopControl {
  const slowAfter = slowStopMs(process.env);
  const stamps: number[] = [];
  let slow: Timer | undefined;
  let hinted = false;
  let settled = false;
  let answer: Completion | null = null;
  const waiting: ((c: Completion) => void)[] = [];
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const force = () => {
    opts.forceQuit();
    opts.say("Force-quit: the agent was killed and the loop ended without its normal cleanup. `wt-loop status` shows what is left.");
    exit(130);
  };
  const press = (source: string) => {
    if (settled) return;
    const now = Date.now();
    stamps.push(now);
    while (stamps.length && now - stamps[0]! > FORCE_WINDOW_MS) stamps.shift();
    // After the slow-stop hint the first request still counts, so "q twice more" is enough.
    const counted = stamps.length + (hinted ? 1 : 0);
    if (counted >= 3) return force();
    // What is said is what is true: the presses still needed, within the window that counts them.
    const more = `press q ${3 - counted === 1 ? "once" : "twice"} more within ${FORCE_WINDOW_MS / 1000} s to force-quit`;
    if (opts.controller.signal.aborted) return opts.say(`Still stopping… ${more}.`);
    // The key first: the loop screen's footer is one row, cut at its width (80 columns keep "press q twice more").
    opts.say(`Stopping (${source}): ${more}; the agent is being stopped, completed stories stay committed.`);
    opts.controller.abort();
    slow = setTimeout(() => {
      if (settled) return;
      hinted = true;
      opts.say("Still stopping… press q twice more to force-quit.");
    }, slowAfter);
    slow.unref?.();
  };
  const remote = (sig: string, choice: Completion) => {
    answer ??= choice;
    for (const w of waiting.splice(0)) w(answer);
    press(sig);
  };
  // A signal comes from outside the window (`timeout`, systemd, `kill`, `wt-loop stop`; Ctrl-C typed in
  // the window is a key, raw mode delivers it as a byte): nobody may be at the window, so it answers the
  // question too, and the process ends. A second signal forces: whoever sends it means it.
  let signals = 0;
  const signalled = (sig: string, choice: Completion) => {
    if (++signals > 1) return force();
    remote(sig, choice);
  };
  const onInt = (sig: NodeJS.Signals) => signalled(sig, "keep");
  const onTerm = (sig: NodeJS.Signals) => signalled(sig, "keep");
  const onUsr2 = (sig: NodeJS.Signals) => signalled(sig, "cleanup");
  process.on("SIGINT", onInt);
  process.on(ANSWER_SIGNALS.keep, onTerm);
  process.on(ANSWER_SIGNALS.cleanup, onUsr2);
  return {
    press,
    hangUp: (source) => remote(source, "keep"),
    force: () => {
      if (!settled) force();
    },
    get answer() {
      return answer;
    },
    answered: () => (answer ? Promise.resolve(answer) : new Promise((r) => waiting.push(r))),
    settle() {
      settled = true;
      clearTimeout(slow);
    },
    dispose() {
      clearTimeout(slow);
      process.off("SIGINT", onInt);
      process.off(ANSWER_SIGNALS.keep, onTerm);
      process.off(ANSWER_SIGNALS.cleanup, onUsr2);
    },
  };
}
