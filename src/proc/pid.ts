/**
 * Which processes are wt-loop's own. A state or lock file names pids, and a repository can commit
 * such a file naming any process (pid 1 included), so a pid is acted on only when it is provably
 * this worktree's runner — its pid, its start time (Linux: /proc/PID/stat field 22, which tells it
 * from a reused pid) and its command line (this binary's `run` or `start`, working in this
 * worktree) all match — or that runner's agent. `ownedBy` decides this for every caller; every
 * signal goes through `signalQuietly`, which refuses pid 0, 1 and their negatives (kill(-1) is every
 * process the user may signal).
 */
import { readFileSync, readlinkSync, realpathSync } from "node:fs";
import { resolve, sep } from "node:path";
import { isCompiled, selfArgv } from "../self.ts";

/** Start time, state and parent/group of a live process (Linux), or null. */
function stat(pid: number): { state: string; ppid: number; pgrp: number; started: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]), started: f[19]! }; // field 22 overall
  } catch {
    return null;
  }
}

export const processStartTime = (pid: number): string | null => stat(pid)?.started ?? null;

const validPid = (pid: unknown): pid is number => typeof pid === "number" && Number.isSafeInteger(pid) && pid > 1;

/** Alive and not a zombie (a dead process its parent has not reaped yet still answers kill 0). */
export function isAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
  const s = stat(pid);
  return s === null ? process.platform !== "linux" : s.state !== "Z" && s.state !== "X";
}

/** What a state (or a lock) claims: the runner, its agent, and the worktree they work in. */
export interface Claim {
  runner_pid: number | null;
  runner_started: string | null;
  agent_pid?: number | null;
  agent_started?: string | null;
  worktree_path: string;
}

export interface Owned {
  /** The runner, when it is provably this worktree's wt-loop runner; else null. */
  runner: number | null;
  /** The agent's process group, when its leader is provably that runner's agent; else null. */
  agentGroup: number | null;
  /** A live pid the claim names that is not ours (the state is stale or foreign): never signal it. */
  foreign: number | null;
}

/** The one answer to "may wt-loop treat these pids as its own?" — for stop, force, liveness and locks. */
export function ownedBy(c: Claim): Owned {
  const runner = isOurRunner(c.runner_pid, c.runner_started, c.worktree_path) ? c.runner_pid : null;
  const agentGroup = runner !== null && isAgentOf(runner, c.agent_pid, c.agent_started) ? c.agent_pid! : null;
  // The agent of a runner that died lives on as a leftover (ended by its run's tag, not by pid): only
  // beside a runner of ours, or as pid 1, does a live agent pid show the state to be foreign.
  const suspects = [c.runner_pid, runner !== null || c.agent_pid === 1 ? c.agent_pid : null];
  const named = suspects.find((p) => p !== null && p !== undefined && p !== runner && p !== agentGroup && (p === 1 || isAlive(p)));
  return { runner, agentGroup, foreign: named ?? null };
}

/** A state or lock names a live runner of this worktree. */
export const hasOwnRunner = (c: Claim) => ownedBy(c).runner !== null;

function isOurRunner(pid: number | null, started: string | null, worktree: string): pid is number {
  if (!validPid(pid) || started === null || !isAlive(pid)) return false;
  if (processStartTime(pid) !== started) return false;
  // This very process (the runner checking its own lock or state) needs no further proof.
  if (pid === process.pid) return true;
  return runsTheLoop(pid) && worksIn(pid, worktree);
}

/** The agent leads its own group, was started by the runner, and is the process that recorded `started`. */
function isAgentOf(runner: number, pid: number | null | undefined, started: string | null | undefined): boolean {
  if (!validPid(pid) || !started || !isAlive(pid)) return false;
  const s = stat(pid);
  return s !== null && s.started === started && s.pgrp === pid && s.ppid === runner;
}

const LOOP_COMMANDS = new Set(["run", "start"]);

/** Is `pid` this binary running a loop (`run`, or `start` inline)? Compiled: the same executable; from source: the same cli.ts. */
function runsTheLoop(pid: number): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return false;
  }
  if (isCompiled()) return sameFile(`/proc/${pid}/exe`, process.execPath) && LOOP_COMMANDS.has(argv[1] ?? "");
  const entry = selfArgv()[1]!;
  const cwd = readLink(`/proc/${pid}/cwd`);
  const at = argv[1] === "run" ? 2 : 1; // `bun src/cli.ts run` or `bun run src/cli.ts run`
  return cwd !== null && argv[at] !== undefined && sameFile(resolve(cwd, argv[at]), entry) && LOOP_COMMANDS.has(argv[at + 1] ?? "");
}

/** The runner works in the worktree (or a folder inside it): a runner of another worktree is not this one's. */
function worksIn(pid: number, worktree: string): boolean {
  const cwd = readLink(`/proc/${pid}/cwd`);
  const root = real(worktree);
  return cwd !== null && root !== null && (cwd === root || cwd.startsWith(root.endsWith(sep) ? root : root + sep));
}

function readLink(path: string): string | null {
  try {
    // A binary replaced while it runs (an upgrade) reads as "… (deleted)".
    return readlinkSync(path).replace(/ \(deleted\)$/, "");
  } catch {
    return null;
  }
}

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

function sameFile(a: string, b: string): boolean {
  const x = a.startsWith("/proc/") ? readLink(a) : real(a);
  return x !== null && x === real(b);
}

/**
 * Sends `sig` to `pid` (a negative pid: its process group), ignoring a process already gone. Refuses
 * pid 0, 1, -1 and anything not an integer: those mean "my group", init and "every process".
 */
export function signalQuietly(pid: number, sig: NodeJS.Signals | 0): boolean {
  if (!Number.isSafeInteger(pid) || Math.abs(pid) <= 1) return false;
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // ESRCH: already gone (EPERM: not ours)
  }
}
