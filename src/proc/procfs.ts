/**
 * What wt-loop reads about a process to tell its own from any other: start time, state, parent and
 * group, command line, working folder and executable. Linux reads them from /proc (no process
 * started); where there is no /proc (macOS) `ps.ts` asks `ps` and `lsof`.
 */
import { readFileSync, readlinkSync } from "node:fs";

export interface Stat {
  state: string;
  ppid: number;
  pgrp: number;
  /** The start time, in the table's own form: compared only with what the same table recorded. */
  started: string;
}

/** Exact argv (Linux), or argv joined by spaces where only `ps` can tell (arguments may hold spaces). */
export type CommandLine = { argv: string[] } | { text: string };

/** One look at the processes an identity check names (`ps`: one process for all of them). */
export interface ProcView {
  /** False when nothing could be read (`ps` missing): a process not found may still be alive. */
  readable: boolean;
  stat(pid: number): Stat | null;
  commandLine(pid: number): CommandLine | null;
  cwd(pid: number): string | null;
  exe(pid: number): string | null;
}

export type ProcessTable = (pids: number[]) => ProcView;

/** /proc/PID/stat's state, parent, process group and start time; null when the process is gone. */
export function stat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]), started: f[19]! }; // field 22 overall
  } catch {
    return null;
  }
}

function readLink(path: string): string | null {
  try {
    // A binary replaced while it runs (an upgrade) reads as "… (deleted)".
    return readlinkSync(path).replace(/ \(deleted\)$/, "");
  } catch {
    return null;
  }
}

const view: ProcView = {
  readable: true,
  stat,
  commandLine(pid) {
    try {
      return { argv: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") };
    } catch {
      return null;
    }
  },
  cwd: (pid) => readLink(`/proc/${pid}/cwd`),
  exe: (pid) => readLink(`/proc/${pid}/exe`),
};

/** /proc answers here: Linux, unless `WT_LOOP_PROC=ps` (read once; for tests) asks for the other table. */
export const hasProcfs = process.platform === "linux" && process.env.WT_LOOP_PROC !== "ps";

/** Linux: every read is a file read, at the moment it is asked for (nothing to batch). */
export const procfs: ProcessTable = () => view;
