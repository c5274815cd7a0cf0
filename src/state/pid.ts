/**
 * Is the loop's runner still alive? A pid alone can be reused by an unrelated process after the
 * runner died, so the runner also records its start time (Linux: /proc/PID/stat field 22), and a
 * pid whose start time differs is not our runner.
 */
import { readFileSync } from "node:fs";

export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null; // field 22 overall = index 19 after pid and comm
  } catch {
    return null;
  }
}

/** Alive and not a zombie (a dead process its parent has not reaped yet still answers kill 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (macOS): kill 0 is all we know
  }
}

/** True when `pid` is alive and, where start times are known, is the same process that recorded `started`. */
export function isRunner(pid: number | null, started: string | null): boolean {
  if (pid === null || !isAlive(pid)) return false;
  if (started === null) return true;
  const now = processStartTime(pid);
  return now === null || now === started;
}
