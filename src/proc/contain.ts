/**
 * Containment: no process started for an agent run outlives it, the runner, a stop or a timeout —
 * including descendants that called setsid or changed process group, which a group kill misses.
 *
 * On Linux three things find them: the agent's process group; the run's tag (`WT_LOOP_RUN` in the
 * agent's environment, inherited by everything it starts and readable in /proc/PID/environ for our
 * own uid's processes); and the runner being a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so an
 * orphaned descendant becomes the runner's child instead of init's. Bun reaps only the children it
 * spawned, so the orphans that die under us are reaped here (waitpid on that pid only). Elsewhere
 * the process group is all there is.
 */
import { readdirSync, readFileSync } from "node:fs";
import { stat } from "./procfs.ts";
import { signalQuietly } from "./signal.ts";

export const RUN_TAG_VAR = "WT_LOOP_RUN";

/** The tag of one loop run: what its agents carry in their environment. */
export const runTag = (worktreePath: string, startedAt: string) => `${worktreePath}#${startedAt}`;

/** Pids spawned through proc/spawn.ts that have not exited yet: Bun reaps those itself. */
export const spawnedLive = new Set<number>();

type Libc = { prctl(o: number, a: bigint, b: bigint, c: bigint, d: bigint): number; waitpid(pid: number, status: null, opts: number): number };
let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux") return libc;
  try {
    // Loaded lazily: bun:ffi costs start-up time that commands which never run an agent need not pay.
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    for (const name of ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"]) {
      try {
        const lib = dlopen(name, {
          prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
          waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
        });
        libc = lib.symbols as unknown as Libc;
        break;
      } catch {
        // try the next name
      }
    }
  } catch {
    // no FFI: the process group and the tag still work
  }
  return libc;
}

let subreaper: boolean | undefined;
/** Makes this process a child subreaper (Linux); true when it is one. Idempotent. */
export function becomeSubreaper(): boolean {
  if (subreaper !== undefined) return subreaper;
  const c = loadLibc();
  subreaper = c !== null && c.prctl(36 /* PR_SET_CHILD_SUBREAPER */, 1n, 0n, 0n, 0n) === 0;
  return subreaper;
}

/**
 * Sets the signal the kernel sends this process when its parent dies (Linux, prctl PR_SET_PDEATHSIG;
 * 0 for none). The compiled binary starts with SIGKILL there (its baked-in `--no-orphans`), which a
 * runner typed in a shell cannot survive to clean up after: the shell exits on a closed terminal and
 * the runner is killed before it hears the hang-up. True when set.
 */
export function setParentDeathSignal(signo: number): boolean {
  const c = loadLibc();
  return c !== null && c.prctl(1 /* PR_SET_PDEATHSIG */, BigInt(signo), 0n, 0n, 0n) === 0;
}

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  zombie: boolean;
  /** When it started, in clock ticks since boot (/proc/PID/stat field 22). */
  start: number;
}

function readProc(pid: number): Proc | null {
  const s = stat(pid); // null: gone meanwhile
  return s && { pid, ppid: s.ppid, pgrp: s.pgrp, zombie: s.state === "Z" || s.state === "X", start: Number(s.started) };
}

/** The RUN_TAG_VAR value `pid` carries: null when none (or it is not ours to read). */
function tagOf(pid: number): string | null {
  try {
    // Only our own uid's processes are readable; another user's cannot be ours.
    const environ = `\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`;
    const key = `\0${RUN_TAG_VAR}=`;
    const at = environ.indexOf(key);
    if (at === -1) return null;
    const from = at + key.length;
    const end = environ.indexOf("\0", from);
    return environ.slice(from, end === -1 ? undefined : end);
  } catch {
    return null;
  }
}

let hasProc: boolean | undefined;
function procAvailable(): boolean {
  if (hasProc === undefined) {
    try {
      hasProc = process.platform === "linux" && readdirSync("/proc").length > 0;
    } catch {
      hasProc = false;
    }
  }
  return hasProc;
}

export interface Target {
  /** The agent's process group. */
  pgid?: number;
  /** The tag its processes carry (RUN_TAG_VAR's value): a run's, a lane's, or one command's (`<tag>#<pid>.<n>`, spawn.ts). */
  tag?: string;
  /** Also this process's orphaned children (this process is a subreaper). */
  orphans?: boolean;
  /** Also the tags made from `tag` (`<tag>#…`: a `--parallel` lane's, laneTag; each contained command's, spawn.ts). */
  family?: boolean;
  /**
   * No process that carries `tag` started before this (clock ticks since boot, as /proc/PID/stat
   * says): the command that first carried it, when only its own tag is looked for. The environments
   * of the older processes (on a shared machine, hundreds) are then not read after every agent run.
   */
  bornSince?: number;
}

/** When `pid` started (clock ticks since boot), while it is there to ask; undefined elsewhere than Linux. */
export function startTicks(pid: number): number | undefined {
  return procAvailable() ? readProc(pid)?.start : undefined;
}

/** A `--parallel` lane's own tag: ending one lane's run ends nothing of another's; the run's family ends them all. */
export const laneTag = (tag: string, storyId: string, attempt: number) => `${tag}#lane-${storyId}-${attempt}`;

/** The live processes of `t`, with their descendants; zombies that are our orphans are reaped on the way. */
export function findProcesses(t: Target): number[] {
  // The common case (a git call whose group is already empty) costs one kill(2), not a scan of /proc.
  if (!t.tag && !t.orphans && t.pgid !== undefined && !groupExists(t.pgid)) return [];
  if (!procAvailable()) return t.pgid !== undefined && groupExists(t.pgid) ? [-t.pgid] : [];
  const all: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const p = readProc(pid);
    if (p) all.push(p);
  }
  const found = new Set<number>();
  for (const p of all) {
    if (p.zombie) {
      if (p.ppid === process.pid && !spawnedLive.has(p.pid)) loadLibc()?.waitpid(p.pid, null, 1 /* WNOHANG */);
      continue;
    }
    if (t.pgid !== undefined && p.pgrp === t.pgid) {
      found.add(p.pid);
      continue;
    }
    const orphan = t.orphans && p.ppid === process.pid && !spawnedLive.has(p.pid);
    if (!orphan && (!t.tag || (t.bornSince !== undefined && p.start < t.bornSince))) continue;
    const tag = tagOf(p.pid);
    const ours = t.tag !== undefined && tag !== null && (tag === t.tag || (t.family === true && tag.startsWith(`${t.tag}#`)));
    // An orphan that carries another command's tag is that command's, not ours.
    if (ours || (orphan && tag === null)) found.add(p.pid);
  }
  // Descendants of what was found, whatever their group or environment.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all)
      if (!p.zombie && !found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
  }
  return [...found];
}

function groupExists(pgid: number): boolean {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

const POLL_MS = 25;
/** After SIGKILL, how long to wait for the kernel (a process in uninterruptible sleep) before giving up. */
const KILL_WAIT_MS = 10_000;

/**
 * Ends every process of `t`: SIGTERM, SIGKILL to what is left after `graceMs`, and resolves only when
 * none is left (or, after the SIGKILL, a process could not be ended within 10 s: it is returned).
 */
export async function endProcesses(t: Target, graceMs: number, opts: { term?: boolean } = {}): Promise<number[]> {
  const start = Date.now();
  let left = findProcesses(t);
  if (!left.length) return [];
  if (opts.term !== false) for (const pid of left) signalQuietly(pid, "SIGTERM");
  let killed = false;
  while (left.length) {
    const waited = Date.now() - start;
    if (!killed && waited >= graceMs) {
      killed = true;
      for (const pid of left) signalQuietly(pid, "SIGKILL");
    } else if (killed) {
      if (waited >= graceMs + KILL_WAIT_MS) return left;
      for (const pid of left) signalQuietly(pid, "SIGKILL"); // newcomers forked meanwhile
    }
    await Bun.sleep(POLL_MS);
    left = findProcesses(t);
  }
  return [];
}

/**
 * Ends what a dead runner's agents left behind (they carry the run's tag): whichever command notices
 * the death (status, stop, monitor, start) calls this. Returns how many processes were found.
 */
export async function endRunLeftovers(worktreePath: string, startedAt: string): Promise<number> {
  const t: Target = { tag: runTag(worktreePath, startedAt), family: true }; // its lanes' too (--parallel)
  const found = findProcesses(t).length;
  if (found) await endProcesses(t, LEFTOVER_GRACE_MS);
  return found;
}
const LEFTOVER_GRACE_MS = 2000;
