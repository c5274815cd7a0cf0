/**
 * A runner that died (a crash, kill -9, a closed window) cannot record its own end: whoever reads its
 * state next (status, stop, monitor, list, the MCP server, start and run) corrects it, and ends the
 * processes its agent left behind.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { endRunLeftovers, runTag } from "../proc/contain.ts";
import { removeSandboxDirs } from "../proc/sandbox-dir.ts";
import { isAlive, ownedBy } from "../proc/pid.ts";
import { loopRoot, removeDeadTemps } from "../proc/safe-fs.ts";
import { isFinal, namesLiveRunner } from "../state/final.ts";
import type { State } from "../state/schema.ts";
import { readState, writeState } from "../state/store.ts";
import { endedState } from "../state/ending.ts";
import { LOOP_FILES } from "../state/paths.ts";

/** What to tell the user when a state names a live process that is not ours: it was not touched. */
export const staleNote = (s: State, pid: number) =>
  `The state names pid ${pid}, which is not a wt-loop runner of ${s.worktree_path} or its agent (a stale or foreign state file): ` +
  "nothing was signalled. If a loop of yours runs here, stop it in its window; otherwise nothing needs doing (`wt-loop start` begins afresh).";

/**
 * What correcting `state` would change when its runner is gone, or null when nothing needs it.
 * Reads the process table only: `correctDeadRunner` acts on it, a dry run only looks.
 */
export function deadRunnerFix(state: State, now = new Date().toISOString(), lastSign = now): { note: string; corrected: State } | null {
  if (!namesLiveRunner(state)) return null;
  const owned = ownedBy(state);
  if (owned.runner !== null) return null;
  // A live process the state names that is not ours: the state is stale (or planted); its runner is
  // not alive as ours, so it is corrected like a dead one — and that process is left alone.
  const stale = owned.foreign !== null ? `${staleNote(state, owned.foreign)} ` : "";
  if (isFinal(state.status) && (state.completion_pending || state.runner_pid !== null)) {
    // Ended, then died in its completion step (or while its question waited): the loop's status
    // stands; the branch stays as the completion left it.
    const during = state.completion_pending ? "while its completion question waited" : "during its completion step";
    const note =
      `${stale ? `${stale}The` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) died ${during}; the`} loop stays ${state.status}, ` +
      `its work on ${state.checkpoint_branch ?? "the current branch"}.`;
    return { note, corrected: { ...state, completion_pending: false, runner_pid: null, agent_pid: null, agent_started: null, updated_at: now } };
  }
  if (state.status !== "running" && state.status !== "paused") return null;
  const note =
    `${stale ? `${stale}Its` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) is no longer alive; its`} state was corrected ` +
    `from ${state.status} to stopped.`;
  const reason = `${note} Work it committed is on ${state.checkpoint_branch ?? "the current branch"}; anything in progress is still in the working tree.`;
  // It ended, at the latest, at its last sign of life; not when someone found it (days later, maybe).
  const corrected = endedState(state, { status: "stopped", reason, error: state.error }, lastSign);
  return { note, corrected: { ...corrected, updated_at: now } };
}

/**
 * When a runner found dead was last seen alive: the last write of its state or of its event log (the
 * state's `updated_at` when the files say nothing later), never after `now`.
 */
export function lastSignOfLife(path: string, state: State, now = Date.now()): string {
  const mtime = (p: string) => {
    try {
      return statSync(p).mtimeMs;
    } catch {
      return 0;
    }
  };
  const recorded = Date.parse(state.updated_at);
  const last = Math.max(Number.isFinite(recorded) ? recorded : 0, mtime(path), mtime(join(dirname(path), LOOP_FILES.events)));
  return new Date(Math.min(last || now, now)).toISOString();
}

/**
 * A `running` state whose runner is gone is corrected to `stopped` on disk (a final one loses its
 * dead runner), so readers are not told a dead loop is alive. `state` is updated in place. Returns
 * the note to show, or null.
 */
export async function correctDeadRunner(path: string, state: State): Promise<string | null> {
  if (!namesLiveRunner(state)) return null; // no process to check, nor files to look at
  const fix = deadRunnerFix(state, undefined, lastSignOfLife(path, state));
  if (!fix) return null;
  // Its agent's processes (orphans now, in whatever group) would go on editing the tree.
  await endRunLeftovers(state.worktree_path, state.started_at);
  // Its sandbox's folder, which only a runner that ends removes.
  if (state.sandbox) removeSandboxDirs(runTag(state.worktree_path, state.started_at));
  // A kill between a write and its rename leaves the write's temp file: the state's, a prompt's, a request's answer.
  const dir = dirname(path);
  const logs = join(dir, LOOP_FILES.logs); // a run's prompts are in its own folder there (logs/<its start>/)
  const runs = (() => {
    try {
      return readdirSync(logs, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(logs, e.name));
    } catch {
      return [];
    }
  })();
  for (const d of [dir, logs, ...runs, join(dir, LOOP_FILES.requests)]) removeDeadTemps(loopRoot(path), d, (pid) => !isAlive(pid));
  Object.assign(state, fix.corrected);
  await writeState(path, state);
  return fix.note;
}

/**
 * The previous run's state as `start` and `run` must see it: a dead runner recorded first, as
 * `status` would, so that a plain start continues the loop it stopped. With `dryRun` nothing is
 * written or ended; the state is returned as the correction would leave it, and the note says so.
 */
export async function previousRun(path: string, dryRun: boolean, warn: (message: string) => void): Promise<State | null> {
  const state = await readState(path);
  if (!state) return null;
  if (!dryRun) {
    const note = await correctDeadRunner(path, state);
    if (note) warn(note);
    return state;
  }
  const fix = deadRunnerFix(state, undefined, lastSignOfLife(path, state));
  if (!fix) return state;
  warn(
    `${fix.note.replace(/ was corrected from (running|paused) to stopped\.$/, " would be corrected from $1 to stopped.")} (A dry run writes nothing: ` +
      `planned as if it were.)`,
  );
  return fix.corrected;
}
