/**
 * Signalling a pid safely. Apart from pid.ts (which re-exports it) so that spawn.ts and contain.ts —
 * loaded by every command that runs git — do not load the process-identity checks with it.
 */

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
