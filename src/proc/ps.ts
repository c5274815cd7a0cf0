/**
 * The process facts of `procfs.ts` where there is no /proc (macOS): one `ps` for every pid an
 * identity check names (start time, parent, group, state, command line), and `lsof` for a process's
 * working folder and executable, asked only of a process whose start time and pid already match
 * (a live runner). The start time is `ps`'s `lstart` text in UTC: second resolution, which with the
 * pid, the command line and the folder still tells a runner from a process that reused its pid.
 *
 * Bun.spawnSync, not the spawn wrapper: every caller of the identity check is synchronous (the lock,
 * `ownedBy`'s users), the wrapper has no sync form, and one there would import this file's importer
 * (spawn.ts needs pid.ts). These are short queries: argv only, a timeout, a fixed locale and zone so
 * every reader gets the same text.
 */
import { realOrSame } from "./real-path.ts";
import type { ProcessTable, Stat } from "./procfs.ts";

const TIMEOUT_MS = 5000;
const SYSTEM_PATH = "/bin:/usr/bin:/usr/sbin:/sbin";

/** stdout of a query, or null when it could not be run (not installed, timed out). */
function query(argv: string[]): string | null {
  try {
    const r = Bun.spawnSync(argv, {
      // The system's own first (macOS keeps lsof in /usr/sbin, which a PATH may lack; a `ps` earlier on
      // the user's PATH is not the one to trust about which process is which).
      env: { PATH: `${SYSTEM_PATH}:${process.env.PATH ?? ""}`, LC_ALL: "C", TZ: "UTC0" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      timeout: TIMEOUT_MS,
    });
    return r.exitedDueToTimeout ? null : r.stdout.toString();
  } catch {
    return null; // ENOENT: not installed
  }
}

// Each its own `-o`: BSD ps may take the text after a `=` as the header of the rest of a list.
const COLUMNS = ["pid", "lstart", "ppid", "pgid", "stat", "command"];
// `ps` exits 1 when none of the pids is alive: an empty answer, not a failure.
const PS_LINE = /^\s*(\d+)\s+(\S+\s+\S+\s+\S+\s+\S+\s+\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s(.*)$/;

/** pid → its stat and command line, as one `ps` call shows them. */
export function parsePs(out: string): Map<number, Stat & { text: string }> {
  const found = new Map<number, Stat & { text: string }>();
  for (const line of out.split("\n")) {
    const m = PS_LINE.exec(line);
    if (!m) continue;
    const started = m[2]!.replace(/\s+/g, " "); // `Nov  5` pads the day
    found.set(Number(m[1]), { started, ppid: Number(m[3]), pgrp: Number(m[4]), state: m[5]![0]!, text: m[6]!.trim() });
  }
  return found;
}

/** `lsof -F fn` output: the working folder and the first executable mapping (the program itself). */
export function parseLsof(out: string): { cwd: string | null; exe: string | null } {
  const at: { cwd: string | null; exe: string | null } = { cwd: null, exe: null };
  let fd = "";
  for (const line of out.split("\n")) {
    if (line.startsWith("f")) fd = line.slice(1);
    else if (line.startsWith("n")) {
      const name = line.slice(1).replace(/ \(deleted\)$/, "");
      if (fd === "cwd") at.cwd ??= name;
      else if (fd === "txt") at.exe ??= name;
    }
  }
  return at;
}

const real = (path: string | null) => (path === null ? null : realOrSame(path));

export const psTable: ProcessTable = (pids) => {
  // Asked on first use: a check that ends at `kill(pid, 0)` (a dead pid) starts no process.
  let asked: { out: string | null; found: ReturnType<typeof parsePs> } | undefined;
  const ps = () => {
    if (!asked) {
      const out = pids.length ? query(["ps", "-ww", ...COLUMNS.flatMap((c) => ["-o", `${c}=`]), "-p", pids.join(",")]) : "";
      asked = { out, found: parsePs(out ?? "") };
    }
    return asked;
  };
  const places = new Map<number, { cwd: string | null; exe: string | null }>();
  const place = (pid: number) => {
    let p = places.get(pid);
    if (!p) {
      const lsof = ps().found.has(pid) ? query(["lsof", "-w", "-a", "-p", String(pid), "-d", "cwd,txt", "-F", "fn"]) : null;
      const at = parseLsof(lsof ?? "");
      p = { cwd: real(at.cwd), exe: real(at.exe) };
      places.set(pid, p);
    }
    return p;
  };
  return {
    get readable() {
      return ps().out !== null;
    },
    stat: (pid) => {
      const f = ps().found.get(pid);
      return f ? { state: f.state, ppid: f.ppid, pgrp: f.pgrp, started: f.started } : null;
    },
    commandLine: (pid) => {
      const f = ps().found.get(pid);
      return f ? { text: f.text } : null;
    },
    cwd: (pid) => place(pid).cwd,
    exe: (pid) => place(pid).exe,
  };
};
