/**
 * The terminal went away (its window closed, its tmux window killed): SIGHUP, stdin at its end or
 * failing, a write to it failing with EIO. Nobody can see or answer anything here any more, so a
 * runner stops as `wt-loop stop` would (its question answered keep) and the process ends as soon as
 * its command returns — nothing the screen library still holds for the dead terminal (a write it
 * keeps polling) may keep it alive, spinning, holding the worktree's lock.
 */
const SIGHUP = 1;
let parentDeathIsHangUp = false;

let gone: string | null = null;
const listeners = new Set<(why: string) => void>();

/** Whether (and how) this process's terminal went away. */
export const terminalGone = (): string | null => gone;

let letGo = false;
/**
 * A prompt was let go of unanswered (its question was answered elsewhere): what the prompt library
 * may still hold of the terminal (a read it set up after we let go) must not keep the process alive
 * once its command is over (cli.ts).
 */
export const promptLetGo = (): void => void (letGo = true);
/** Whether nothing on this terminal is worth waiting for once the command is over. */
export const terminalReleased = (): boolean => gone !== null || letGo;

/** Says the terminal went away (a view noticed: its screen was destroyed by the hang-up, a write failed). */
export function reportHangUp(why: string): void {
  if (gone) return;
  gone = why;
  for (const fn of [...listeners]) fn(why);
}

/** SIGHUP is ignored (`nohup`): the user asked to outlive the terminal. Asked before anything here listens to it. */
function hangUpIgnored(): boolean {
  // Loaded here: cli.ts imports this file, and node:fs is a quarter of an empty program's start-up, which
  // `--version` and `--help` need not pay (docs/performance.md).
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  try {
    const mask = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n; // SIGHUP is signal 1
  } catch {
    return false; // no /proc (macOS): a hang-up ends the process by default anyway
  }
}

/**
 * Calls `on` once when the terminal of this process goes away; returns how to stop watching. SIGHUP
 * (unless ignored: `nohup`) whatever the output is; stdin ending or failing only when it is a terminal.
 * The death of this process's parent is made a SIGHUP as well (below).
 */
export function watchHangUp(on: (why: string) => void): () => void {
  // Loaded here: node:tty costs start-up that the commands without a runner need not pay (cli.ts).
  const { isatty } = require("node:tty") as typeof import("node:tty");
  const ignored = hangUpIgnored();
  // The parent's death is a hang-up too, not a SIGKILL (the compiled binary's `--no-orphans` sets that):
  // typed in a shell, the runner outlives by milliseconds the shell a closed terminal ends, and it must
  // hear it to stop its agent, record the stop and release the lock. Under `nohup` (SIGHUP ignored)
  // the runner goes on after its parent, as asked. After the run, SIGHUP's default action (or the
  // screen's own handler) ends the process, as SIGKILL did.
  if (!parentDeathIsHangUp) {
    // Loaded here, as node:tty: cli.ts loads this file for every command.
    const { setParentDeathSignal } = require("../proc/contain.ts") as typeof import("../proc/contain.ts");
    parentDeathIsHangUp = setParentDeathSignal(SIGHUP);
  }
  const onSignal = () => reportHangUp("SIGHUP");
  const onEnd = () => reportHangUp("its input ended");
  const onError = () => reportHangUp("its input failed");
  listeners.add(on);
  if (!ignored) process.on("SIGHUP", onSignal);
  // Listening only: whoever reads stdin (the keys, the prompt, the screen) makes these fire.
  const stdin = isatty(0) ? process.stdin : null;
  stdin?.on("end", onEnd);
  stdin?.on("error", onError);
  if (gone) queueMicrotask(() => on(gone!));
  return () => {
    listeners.delete(on);
    process.off("SIGHUP", onSignal);
    stdin?.off("end", onEnd);
    stdin?.off("error", onError);
  };
}
