/**
 * Stopping `run` (SPEC §6): the first SIGINT/SIGTERM asks the loop to stop gracefully; three within
 * 3 s force-quit at once, killing the agent's process group first.
 */
const FORCE_WINDOW_MS = 3000;

export function installStopHandlers(controller: AbortController, agentPid: () => number | null) {
  const stamps: number[] = [];
  const onSignal = (sig: NodeJS.Signals) => {
    const now = Date.now();
    stamps.push(now);
    while (stamps.length && now - stamps[0]! > FORCE_WINDOW_MS) stamps.shift();
    if (stamps.length >= 3) forceQuit(agentPid(), sig === "SIGINT" ? 130 : 143);
    if (!controller.signal.aborted) {
      process.stderr.write(`\nStopping after ${sig}: the agent is being stopped; completed stories stay committed.\n`);
      controller.abort();
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

export function forceQuit(agentPid: number | null, code: number): never {
  if (agentPid) {
    try {
      process.kill(-agentPid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  process.stderr.write("\nForce-quit: the agent was killed; the loop did not finish its cleanup.\n");
  process.exit(code);
}
