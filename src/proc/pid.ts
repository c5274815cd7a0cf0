/**
 * Which processes are wt-loop's own, read where this platform keeps the facts: /proc on Linux, `ps`
 * and `lsof` elsewhere (macOS). `ownedBy` decides for every caller (`owned.ts`); every signal goes
 * through `signalQuietly`, which refuses pid 0, 1 and their negatives (kill(-1) is every process the
 * user may signal).
 */
import { aliveIn, ownedIn, validPid, type Claim, type Owned } from "./owned.ts";
import { hasProcfs, procfs, type ProcessTable } from "./procfs.ts";
import { psTable } from "./ps.ts";

export type { Claim, Owned } from "./owned.ts";
export { signalQuietly } from "./signal.ts";

export type ProcMode = "proc" | "ps";

let table: ProcessTable = procfs;
let current: ProcMode = "proc";

/** Which table answers (`hasProcfs` picks at start); tests switch to run the same checks through both. Returns the one before. */
export function useProcessTable(mode: ProcMode): ProcMode {
  const before = current;
  table = mode === "ps" ? psTable : procfs;
  current = mode;
  return before;
}
useProcessTable(hasProcfs ? "proc" : "ps");

/** The start time as this platform's table reads it (`runner_started`, `agent_started`), or null. */
export const processStartTime = (pid: number): string | null => table([pid]).stat(pid)?.started ?? null;

/** Alive and not a zombie (a dead process its parent has not reaped yet still answers kill 0). */
export const isAlive = (pid: number): boolean => validPid(pid) && aliveIn(table([pid]), pid);

/** The one answer to "may wt-loop treat these pids as its own?" — for stop, force, liveness and locks. */
export const ownedBy = (c: Claim): Owned => ownedIn(table, c);

/** A state or lock names a live runner of this worktree. */
export const hasOwnRunner = (c: Claim) => ownedBy(c).runner !== null;
