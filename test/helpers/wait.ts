/**
 * The one way tests wait for something another process does: poll a probe until it gives a value,
 * and on timeout fail with what was awaited and what the probe last saw (not a later, vaguer assertion).
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { isAlive } from "../../src/proc/pid.ts";

type Falsy = undefined | null | false | 0 | "";

export interface WaitOptions {
  /** Poll interval in ms. */
  every?: number;
  /** A process that must stay running while we wait: its exit fails the wait at once. */
  whileRunning?: { exitCode: number | null };
}

/**
 * Resolves with the first truthy value `probe` returns. A probe that throws (a file not yet written,
 * half-written JSON) counts as "not yet"; its last error is part of the timeout message.
 */
export async function waitFor<T>(what: string, probe: () => T | Falsy | Promise<T | Falsy>, ms = 30_000, opts: WaitOptions = {}): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    const exited = opts.whileRunning?.exitCode;
    if (exited !== undefined && exited !== null) throw new Error(`the process exited (code ${exited}) before ${what}${lastSeen(last)}`);
    if (Date.now() >= end) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}${lastSeen(last)}`);
    await Bun.sleep(opts.every ?? 50);
  }
}

/** Waits until process `pid` has ended (a killed process can take a moment to be reaped). */
export function waitGone(what: string, pid: number, ms = 10_000): Promise<true> {
  return waitFor(`${what} (pid ${pid}) to end`, () => !isAlive(pid), ms);
}

function lastSeen(v: unknown): string {
  if (v === undefined) return "";
  const text = v instanceof Error ? v.message : typeof v === "string" ? JSON.stringify(v) : String(v);
  return `; last seen: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

/**
 * Sends `signal` and waits until the kernel has handed it to the process: two of the same signal
 * sent while the first is still pending merge into one, so a test counting presses sends them this way.
 */
export async function deliver(pid: number, signal: "SIGTERM" | "SIGINT" | "SIGUSR2"): Promise<void> {
  const bit = 1n << BigInt(os.constants.signals[signal] - 1);
  process.kill(pid, signal);
  await waitFor(
    `${signal} to reach pid ${pid}`,
    () => {
      const pending = /^ShdPnd:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      return pending !== undefined && (BigInt(`0x${pending}`) & bit) === 0n;
    },
    10_000,
    { every: 5 },
  );
}
