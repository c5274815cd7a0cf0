/**
 * Which processes are wt-loop's own. A state or lock file names pids, and a repository can commit
 * such a file naming any process (pid 1 included), so a pid is acted on only when it is provably
 * this worktree's runner — its pid, its start time (which tells it from a reused pid) and its command
 * line (this binary's `run` or `start`, working in this worktree) all match — or that runner's
 * agent. The facts come from a `ProcessTable` (`procfs.ts`, `ps.ts`); `pid.ts` picks the table.
 */
import { realOrNull } from "./real-path.ts";
import { basename, resolve, sep } from "node:path";
import { isCompiled, selfArgv } from "./self.ts";
import type { ProcessTable, ProcView } from "./procfs.ts";

export const validPid = (pid: unknown): pid is number => typeof pid === "number" && Number.isSafeInteger(pid) && pid > 1;

/** A process has this pid (a zombie, or another program that reused the pid, too): all kill 0 tells. */
export function pidInUse(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** Alive and not a zombie (a dead process its parent has not reaped yet still answers kill 0). */
export function aliveIn(view: ProcView, pid: number): boolean {
  if (!pidInUse(pid)) return false;
  const s = view.stat(pid);
  return s === null ? !view.readable : s.state !== "Z" && s.state !== "X";
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
export function ownedIn(table: ProcessTable, c: Claim): Owned {
  const view = table([c.runner_pid, c.agent_pid].filter(validPid));
  const runner = isOurRunner(view, c.runner_pid, c.runner_started, c.worktree_path) ? c.runner_pid : null;
  const agentGroup = runner !== null && isAgentOf(view, runner, c.agent_pid, c.agent_started) ? c.agent_pid! : null;
  // The agent of a runner that died lives on as a leftover (ended by its run's tag, not by pid): only
  // beside a runner of ours, or as pid 1, does a live agent pid show the state to be foreign.
  const suspects = [c.runner_pid, runner !== null || c.agent_pid === 1 ? c.agent_pid : null];
  const named = suspects.find((p) => p !== null && p !== undefined && p !== runner && p !== agentGroup && (p === 1 || aliveIn(view, p)));
  return { runner, agentGroup, foreign: named ?? null };
}

function isOurRunner(view: ProcView, pid: number | null, started: string | null, worktree: string): pid is number {
  if (!validPid(pid) || started === null || !aliveIn(view, pid)) return false;
  if (view.stat(pid)?.started !== started) return false;
  // This very process (the runner checking its own lock or state) needs no further proof.
  if (pid === process.pid) return true;
  return runsTheLoop(view, pid) && worksIn(view, pid, worktree);
}

/** The agent leads its own group, was started by the runner, and is the process that recorded `started`. */
function isAgentOf(view: ProcView, runner: number, pid: number | null | undefined, started: string | null | undefined): boolean {
  if (!validPid(pid) || !started || !aliveIn(view, pid)) return false;
  const s = view.stat(pid);
  return s !== null && s.started === started && s.pgrp === pid && s.ppid === runner;
}

const LOOP_COMMANDS = new Set(["run", "start"]);

/** Is `pid` this binary running a loop (`run`, or `start` inline)? Compiled: the same executable; from source: the same cli.ts. */
function runsTheLoop(view: ProcView, pid: number): boolean {
  const line = view.commandLine(pid);
  if (line === null) return false;
  if (!("argv" in line)) return commandTextRunsTheLoop(view, pid, line.text);
  const argv = line.argv;
  if (isCompiled()) return isExe(view.exe(pid), process.execPath) && LOOP_COMMANDS.has(argv[1] ?? "");
  const entry = selfArgv()[1]!;
  const cwd = view.cwd(pid);
  const at = argv[1] === "run" ? 2 : 1; // `bun src/cli.ts run` or `bun run src/cli.ts run`
  return cwd !== null && argv[at] !== undefined && sameFile(resolve(cwd, argv[at]), entry) && LOOP_COMMANDS.has(argv[at + 1] ?? "");
}

/**
 * The same question on a command line `ps` joined with spaces: the words after the program (whose
 * path may itself hold spaces) are tried at every split where the program is this one.
 */
function commandTextRunsTheLoop(view: ProcView, pid: number, text: string): boolean {
  const words = text.split(" ");
  const self = basename(process.execPath);
  const isProgram = (w: string[]) => w.length > 0 && basename(w.join(" ")) === self;
  if (isCompiled()) {
    if (!isExe(view.exe(pid), process.execPath)) return false;
    return words.some((w, i) => LOOP_COMMANDS.has(w) && (i === 1 || isProgram(words.slice(0, i))));
  }
  const entry = selfArgv()[1]!;
  const cwd = view.cwd(pid);
  if (cwd === null) return false;
  for (let end = 1; end < words.length - 1; end++) {
    if (!LOOP_COMMANDS.has(words[end + 1]!) || !words[end]!.endsWith(basename(entry))) continue;
    for (let start = 1; start <= end; start++) {
      const before = words.slice(0, start);
      const program = before.at(-1) === "run" ? before.slice(0, -1) : before; // `bun run src/cli.ts run`
      if (isProgram(program) && sameFile(resolve(cwd, words.slice(start, end + 1).join(" ")), entry)) return true;
    }
  }
  return false;
}

/** The runner works in the worktree (or a folder inside it): a runner of another worktree is not this one's. */
function worksIn(view: ProcView, pid: number, worktree: string): boolean {
  const cwd = view.cwd(pid);
  const root = real(worktree);
  return cwd !== null && root !== null && (cwd === root || cwd.startsWith(root.endsWith(sep) ? root : root + sep));
}

const real = realOrNull;

/** `exe` is the executable as the table read it (a resolved path). */
const isExe = (exe: string | null, path: string) => exe !== null && exe === real(path);
const sameFile = (a: string, b: string) => {
  const x = real(a);
  return x !== null && x === real(b);
};
