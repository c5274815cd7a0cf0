/**
 * Reading and writing the loop's files: the state (atomic: temp file + rename, so a reader never
 * sees half a file), the append-only event log, and the archive of earlier runs.
 */
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { copyContent } from "../proc/lines.ts";
import { dirname } from "node:path";
import { loopRoot, makeDir, openSafe, renameSafe, writeFileSafe } from "../proc/safe-fs.ts";
import { io, ioSync, UserError } from "../errors.ts";
import { runFiles, type LoopFiles } from "./paths.ts";
import type { LoopEvent } from "../loop/events.ts";
import { appendSpilled } from "../agents/spill.ts";
import { endRunLeftovers } from "../proc/contain.ts";
import { ownedBy } from "../proc/pid.ts";
import { isFinal } from "./final.ts";
import type { State } from "./schema.ts";
import { checkState } from "./state-check.gen.ts";

/**
 * Reads the state of the worktree whose `.claude/loop-state.json` is `path`; null when there is none.
 * A corrupt or invalid file is a UserError and is left as it is. So is a state that belongs to
 * another worktree (a `.claude` shared through a symlink): acting on it would stop or replace the
 * other worktree's loop. A state that is a link (or lies under one) is refused like one written to:
 * it would make wt-loop read, and act on, a file the repository chose.
 */
export async function readState(path: string): Promise<State | null> {
  const worktree = dirname(dirname(path));
  let text: string;
  try {
    const fd = openSafe(worktree, path, "read");
    try {
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw new UserError(`Cannot read the loop state ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UserError(
      `The loop state ${path} is not valid JSON (${(err as Error).message}). ` +
        `It was left untouched: fix it, or move it away to start a new loop.`,
    );
  }
  if (typeof json === "object" && json !== null && !("schema_version" in json)) {
    const seed = await import("./seed.ts");
    if (seed.isSeedState(json)) return seed.fromSeed(json, worktree);
  }
  // The generated check is State.safeParse without loading zod (state/codegen.ts); zod is loaded
  // only to explain a state that fails it.
  const checked = checkState(json);
  const parsed = checked.ok ? { success: true as const, data: checked.value } : await parseWithZod(json);
  if (!parsed.success) {
    throw new UserError(
      `The loop state ${path} does not match the state format (schema_version ${String((json as { schema_version?: unknown })?.schema_version ?? "missing")}):\n` +
        `${parsed.error}\n` +
        `It was left untouched: fix those fields, or move the file away to start a new loop.`,
    );
  }
  if (parsed.data.worktree_path !== worktree)
    throw new UserError(
      `The loop state ${path} belongs to the worktree ${JSON.stringify(parsed.data.worktree_path)}, not to this one ` +
        `(${JSON.stringify(worktree)}); is .claude shared with another worktree (a symlink)? It was left untouched. ` +
        "Give each worktree its own .claude folder, or run wt-loop from that worktree.",
    );
  return parsed.data;
}

async function parseWithZod(json: unknown) {
  const [{ z }, { State }] = await Promise.all([import("zod"), import("./schema.ts")]);
  const parsed = State.safeParse(json);
  return parsed.success ? parsed : { success: false as const, error: z.prettifyError(parsed.error) };
}

/** Never write what could not be read back: a state that fails its own schema is a bug of wt-loop. */
function validForWriting(state: State): State {
  const checked = checkState(state);
  if (checked.ok) return checked.value;
  throw new Error(`wt-loop tried to write an invalid loop state: ${checked.path} is not ${checked.expected}`);
}

export async function writeState(path: string, state: State): Promise<void> {
  const valid = validForWriting(state);
  // A temp file of a random name, created exclusively: two saves in flight never share one, and a
  // link planted under a predictable name is never followed.
  await io("write", path, () => writeFileSafe(loopRoot(path), path, JSON.stringify(valid, null, 2) + "\n"));
}

/**
 * Keeps the previous run's record before a new loop replaces it: its state as `loop-runs/<run>.json`
 * and its event log as `loop-runs/<run>.events.jsonl` (moved, so the new run's log starts empty).
 * Returns the archived state's path.
 */
export async function archiveRun(paths: LoopFiles, previous: State): Promise<string> {
  const root = dirname(paths.dir);
  await io("create", paths.runs, () => makeDir(root, paths.runs));
  const files = runFiles(paths, previous.started_at);
  await io("move", paths.events, () => {
    try {
      renameSafe(root, paths.events, files.archivedEvents);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") throw err;
    }
  });
  await io("copy", paths.state, () => {
    const from = openSafe(root, paths.state, "read");
    try {
      const to = openSafe(root, files.archivedState, "truncate");
      try {
        copyContent(from, to);
      } finally {
        closeSync(to);
      }
    } finally {
      closeSync(from);
    }
  });
  return files.archivedState;
}

const SLICE = 1 << 20;

/** The append-only event log: one JSON object per line, each with the time it happened. */
export class EventLog {
  private fd: number;
  constructor(readonly path: string) {
    this.fd = this.open();
  }
  private open(): number {
    // Checked on every open: the repository may have committed a link here, an agent may plant one.
    return ioSync("open", this.path, () => openSafe(loopRoot(this.path), this.path, "append"));
  }
  /**
   * A `git clean -fdx` (the agent's, a --verify command's) removes the ignored `.claude/`: events
   * written to the unlinked file would reach no reader. A new file takes its place, with everything
   * written so far (on Linux the deleted file is still readable through /proc/self/fd; elsewhere the
   * new file starts empty). One fstat per event; the copy only after a deletion.
   */
  private reclaim(): void {
    if (fstatSync(this.fd).nlink > 0) return;
    ioSync("open", this.path, () => {
      // The new file first: when it cannot be made (a file where `.claude/` was) the old descriptor
      // stays this log's, closed once by close(), not twice.
      const fd = this.open();
      try {
        // Ours is write-only; /proc/self/fd reopens the deleted file for reading (Linux only: elsewhere
        // what was logged before the deletion is gone with the file).
        const old = openSync(`/proc/self/fd/${this.fd}`, "r");
        try {
          copyContent(old, fd);
        } finally {
          closeSync(old);
        }
      } catch {
        // not Linux
      }
      closeSync(this.fd);
      this.fd = fd;
    });
  }
  append(event: LoopEvent): void {
    this.reclaim();
    ioSync("append to", this.path, () => this.write(event));
  }
  private write(event: LoopEvent): void {
    // Written in slices (substrings share the JSON's storage): a message of megabytes is then
    // encoded a megabyte at a time rather than copied whole once more.
    const record = { ts: new Date().toISOString(), ...event };
    // A message too long to hold was scanned, not kept: its text is copied from the iteration log.
    if (appendSpilled(this.fd, record)) return;
    const json = JSON.stringify(record);
    for (let i = 0; i < json.length; i += SLICE) appendFileSync(this.fd, json.length <= SLICE ? json : json.slice(i, i + SLICE));
    appendFileSync(this.fd, "\n");
  }
  close(): void {
    closeSync(this.fd);
  }
}

/** What to tell the user when a state names a live process that is not ours: it was not touched. */
export const staleNote = (s: State, pid: number) =>
  `The state names pid ${pid}, which is not a wt-loop runner of ${s.worktree_path} or its agent (a stale or foreign state file): ` +
  "nothing was signalled. If a loop of yours runs here, stop it in its window; otherwise nothing needs doing (`wt-loop start` begins afresh).";

/**
 * A `running` state whose runner is gone (crash, kill -9, closed window) is corrected to `stopped`
 * on disk, so readers are not told a dead loop is alive. Returns the note to show, or null.
 */
export async function correctDeadRunner(path: string, state: State): Promise<string | null> {
  const owned = ownedBy(state);
  if (owned.runner !== null) return null;
  // A live process the state names that is not ours: the state is stale (or planted); its runner is
  // not alive as ours, so it is corrected like a dead one — and that process is left alone.
  const stale = owned.foreign !== null ? `${staleNote(state, owned.foreign)} ` : "";
  if (isFinal(state.status) && (state.completion_pending || state.runner_pid !== null)) {
    // Ended, then died in its completion step (or while its question waited): the loop's status
    // stands; the branch stays as the completion left it.
    await endRunLeftovers(state.worktree_path, state.started_at);
    const during = state.completion_pending ? "while its completion question waited" : "during its completion step";
    const note = `${stale ? `${stale}The` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) died ${during}; the`} loop stays ${state.status}, its work on ${state.checkpoint_branch ?? "the current branch"}.`;
    Object.assign(state, { completion_pending: false, runner_pid: null, agent_pid: null, agent_started: null, updated_at: new Date().toISOString() });
    await writeState(path, state);
    return note;
  }
  if (state.status !== "running") return null;
  // Its agent's processes (orphans now, in whatever group) would go on editing the tree.
  await endRunLeftovers(state.worktree_path, state.started_at);
  const note = `${stale ? `${stale}Its` : `The loop's runner (pid ${state.runner_pid ?? "unknown"}) is no longer alive; its`} state was corrected from running to stopped.`;
  Object.assign(
    state,
    asStopped(state, `${note} Work it committed is on ${state.checkpoint_branch ?? "the current branch"}; anything in progress is still in the working tree.`),
  );
  await writeState(path, state);
  return note;
}

/** The state of a loop that ended `stopped` without its runner's normal ending. */
export function asStopped(state: State, reason: string): State {
  const now = new Date().toISOString();
  return {
    ...state, status: "stopped", reason, runner_pid: null, agent_pid: null, agent_started: null, current_story: null, waiting: null, ended_at: now, updated_at: now,
    unchecked_story: uncheckedStory(state),
  };
}

/**
 * The story whose last attempt's work is in the tree unaccepted (state `unchecked_story`): one in
 * flight that was never recorded (the runner died, or wt-loop failed during it), or a recorded attempt
 * that was not accepted and not reverted — `stopped`, or the one a loop ended `stuck`/`stalled` on,
 * whose tree is left to look at; else the one this run took over from the previous and has not
 * checked yet. Tasks criteria only: a manual loop's one story is never done by ticks.
 */
export function uncheckedStory(s: State): string | null {
  const last = s.iterations.at(-1);
  if (s.done_criteria !== "tasks") return null;
  if (s.current_story && (last?.n ?? 0) < s.current_iteration) return s.current_story.id;
  if (last && last.outcome !== "complete" && last.outcome !== "unavailable") return last.story_id;
  // Otherwise the one this run took over and has not checked yet (the engine clears it on acceptance).
  return s.unchecked_story ?? null;
}

/** writeState for a process about to exit (a force-quit): synchronous, still atomic. */
export function writeStateSync(path: string, state: State): void {
  ioSync("write", path, () => writeFileSafe(loopRoot(path), path, JSON.stringify(validForWriting(state), null, 2) + "\n"));
}
