/**
 * Stopping `run` (SPEC §6). Every stop request — `q` or Ctrl-C in the terminal, SIGINT or SIGTERM
 * (what `wt-loop stop` sends) — is one "press": the first stops the loop gracefully; if it has not
 * finished 5 s later the user is told to press q twice more to force it; three presses within 3 s
 * force-quit at once.
 */
const FORCE_WINDOW_MS = 3000;
const SLOW_STOP_MS = 5000;

export interface StopControl {
  /** One stop request (a key press or a signal). */
  press(source: string): void;
  dispose(): void;
}

export function stopControl(opts: {
  controller: AbortController;
  /** Kills the agent and records what it can, synchronously: the process exits right after. */
  forceQuit: () => void;
  say: (message: string) => void;
  exit?: (code: number) => never;
}): StopControl {
  const stamps: number[] = [];
  let slow: Timer | undefined;
  let hinted = false;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const press = (source: string) => {
    const now = Date.now();
    stamps.push(now);
    while (stamps.length && now - stamps[0]! > FORCE_WINDOW_MS) stamps.shift();
    // After the slow-stop hint the first request still counts, so "q twice more" is enough.
    if (stamps.length + (hinted ? 1 : 0) >= 3) {
      opts.forceQuit();
      opts.say("Force-quit: the agent was killed and the loop ended without its normal cleanup. `wt-loop status` shows what is left.");
      exit(130);
    }
    if (opts.controller.signal.aborted) return;
    opts.say(`Stopping (${source}): the agent is being stopped; completed stories stay committed. Press q three times to force-quit.`);
    opts.controller.abort();
    slow = setTimeout(() => {
      hinted = true;
      opts.say("Still stopping… press q twice more to force-quit.");
    }, SLOW_STOP_MS);
    slow.unref?.();
  };
  const onSignal = (sig: NodeJS.Signals) => press(sig);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    press,
    dispose() {
      clearTimeout(slow);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
