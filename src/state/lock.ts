/**
 * One runner per worktree (`.claude/loop.lock`): created with O_EXCL, so of two `start`s at the same
 * moment exactly one wins. The lock names its holder (pid + start time, so a reused pid is not
 * mistaken for it) and the run it reserves. A lock whose holder is dead is stale and may be taken
 * over; the take-over runs under a second exclusive file, so two takers cannot both win.
 *
 * `start` hands the lock to the `run` it opens in a new window: it writes `handover_until`, and
 * until then the lock stays held although `start` has exited; the `run` of that same run (matching
 * `run`) adopts it. A window that never opens leaves a lock that goes stale when the hand-over ends.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeDir, writeFileSafe } from "../proc/safe-fs.ts";
import { z } from "zod";
import { hasOwnRunner, processStartTime } from "../proc/pid.ts";

export const LockInfo = z.object({
  pid: z.number().int().positive(),
  started: z.string().nullable(),
  /** The run it reserves: that run's `started_at`. */
  run: z.string(),
  /** Held until then even when `pid` has exited (`start` handing over to its window's `run`). */
  handover_until: z.iso.datetime({ offset: true }).nullable(),
});
export type LockInfo = z.infer<typeof LockInfo>;

/** How long a window may take to open and adopt the loop `start` reserved. */
export const HANDOVER_MS = 60_000;
/** A take-over file older than this belongs to a taker that died in its few milliseconds. */
const TAKEOVER_STALE_MS = 10_000;

/** Held: its holder is provably a wt-loop runner of `worktree` (or this process), or it is being handed over. */
export const isHeld = (l: LockInfo, worktree: string, now = Date.now()) =>
  hasOwnRunner({ runner_pid: l.pid, runner_started: l.started, worktree_path: worktree }) || (l.handover_until !== null && Date.parse(l.handover_until) > now);

export function readLock(path: string): LockInfo | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw err;
  }
  // A lock being written this instant (create, then write) or damaged: treated as held for a moment
  // by the caller's retry, then as stale — it names no live holder.
  const parsed = LockInfo.safeParse(safeJson(text));
  return parsed.success ? parsed.data : null;
}

export interface Lock {
  readonly path: string;
  readonly info: LockInfo;
  /** Keeps the lock held for `ms` after this process exits, for the `run` of the same run. */
  handOver(ms?: number): void;
  /** Removes the lock if it is still ours. */
  release(): void;
  /**
   * Creates the lock again if it is gone (an agent's `git clean -fdx` deletes the loop's ignored
   * files), so a second `start` still finds this runner; a lock someone else created meanwhile is left.
   */
  reassert(): void;
}

const own = (run: string, handoverMs: number | null): LockInfo => ({
  pid: process.pid,
  started: processStartTime(process.pid),
  run,
  handover_until: handoverMs === null ? null : new Date(Date.now() + handoverMs).toISOString(),
});

/** Takes the lock for `run`, or returns the holder that has it. */
export function acquireLock(path: string, run: string, worktree: string): { lock: Lock } | { holder: LockInfo | null } {
  makeDir(dirname(dirname(path)), dirname(path)); // `.claude/` when there is no git folder: never a link
  const info = own(run, null);
  for (let tries = 0; tries < 50; tries++) {
    if (createExclusive(path, JSON.stringify(info))) return { lock: handle(path, info) };
    const holder = readLock(path);
    if (holder && isHeld(holder, worktree)) return { holder };
    if (!holder && ageMs(path) < 1000) {
      sleepSync(20); // being written by its creator right now
      continue;
    }
    takeOverStale(path, worktree);
  }
  return { holder: readLock(path) };
}

/** `run` adopts the lock `start` reserved for this run (same `run`), whoever holds it now. */
export function adoptLock(path: string, run: string): Lock | null {
  const held = readLock(path);
  if (!held || held.run !== run) return null;
  const info = own(run, null);
  replace(path, info);
  return handle(path, info);
}

function handle(path: string, initial: LockInfo): Lock {
  let info = initial;
  return {
    path,
    get info() {
      return info;
    },
    handOver(ms = HANDOVER_MS) {
      info = { ...info, handover_until: new Date(Date.now() + ms).toISOString() };
      replace(path, info);
    },
    release() {
      const now = readLock(path);
      if (now && now.pid === info.pid && now.run === info.run) unlinkQuietly(path);
    },
    reassert() {
      if (readLock(path)) return;
      makeDir(dirname(dirname(path)), dirname(path)); // `.claude/` (the lock's fallback place) may be gone
      createExclusive(path, JSON.stringify(info));
    },
  };
}

/** Removes a stale lock under the take-over file: only one taker at a time looks and removes. */
function takeOverStale(path: string, worktree: string): void {
  const gate = `${path}.takeover`;
  if (!createExclusive(gate, String(process.pid))) {
    if (ageMs(gate) > TAKEOVER_STALE_MS) unlinkQuietly(gate);
    else sleepSync(20);
    return;
  }
  try {
    const holder = readLock(path);
    if (!holder || !isHeld(holder, worktree)) unlinkQuietly(path);
  } finally {
    unlinkQuietly(gate);
  }
}

/** O_CREAT|O_EXCL: a link where the lock goes is never followed (EEXIST), like any other file there. */
function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function replace(path: string, info: LockInfo): void {
  writeFileSafe(dirname(path), path, JSON.stringify(info));
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

const sleepSync = (ms: number) => Bun.sleepSync(ms);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
