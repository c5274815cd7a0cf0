/**
 * Reading and writing the loop's state file (atomic: temp file, fsync, rename, so a reader never
 * sees half a file, nor an empty one after a crash; the runner's writes a restart does not need leave
 * out the fsync, stateWriter), and archiving a run's state and event log.
 */
import { closeSync, lstatSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileStamp } from "../proc/file-stamp.ts";
import { loopRoot, makeDir, openSafe, renameSafe, writeFileSafe } from "../proc/safe-fs.ts";
import { io, ioSync, UserError } from "../errors.ts";
import { runFiles, type LoopFiles } from "./paths.ts";
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
    if ((err as { code?: string }).code === "ENOTDIR" && isFile(dirname(path)))
      throw new UserError(
        `${dirname(path)} is a file, where wt-loop keeps this worktree's loop (its state, events and logs) in a folder. ` +
          `It is not wt-loop's, so it is left as it is: rename it (mv ${dirname(path)} ${dirname(path)}.mine), then run this again.`,
      );
    throw new UserError(`Cannot read the loop state ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UserError(
      `The loop state ${path} is not valid JSON (${(err as Error).message}). ` + `It was left untouched: fix it, or move it away to start a new loop.`,
    );
  }
  if (typeof json === "object" && json !== null && !("schema_version" in json)) {
    const read = (await import("./seed.ts")).seedState(json, worktree);
    if (read) return read;
  }
  // The generated check is State.safeParse without loading zod (state/codegen.ts); zod is loaded
  // only to explain a state that fails it.
  const checked = checkState(json);
  const parsed = checked.ok ? { success: true as const, data: checked.value } : await parseWithZod(json);
  if (!parsed.success) {
    throw new UserError(
      `The loop state ${path} does not match the state format ` +
        `(schema_version ${String((json as { schema_version?: unknown })?.schema_version ?? "missing")}):\n` +
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
  // Loaded here: the readers of a state (status, history) need none of the line machinery.
  const { copyContent } = await import("../proc/lines.ts");
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

/** What this writer last wrote, and the stamp of the file it left (proc/file-stamp.ts; "": none to compare). */
type Written = { text: string; forced: boolean; stamp: string };

/**
 * The runner's writes of its own state, in order, each atomic (a temp file renamed over the state): a
 * `forced` one is on the disk before it takes the name (fsync: a power cut keeps it), another is not
 * (record/store.ts says which writes a restart needs; docs/performance.md what an fsync costs). A write of
 * the very text this writer last wrote, to a file that is still the one it wrote (the same inode, size,
 * mtime and ctime: any other writer's file is a new one), is skipped — an attempt's "the checkpoint is in
 * the state" save usually repeats the save before it — unless it is to be forced and that one was not.
 */
export function stateWriter(path: string): (state: State, forced?: boolean) => Promise<void> {
  let last: Written | null = null;
  const same = (w: Written) => w.stamp !== "" && fileStamp(path, "own") === w.stamp;
  return async (state, forced = true) => {
    const text = JSON.stringify(validForWriting(state), null, 2) + "\n";
    if (last?.text === text && (last.forced || !forced) && same(last)) return;
    last = null;
    await io("write", path, () => writeFileSafe(loopRoot(path), path, text, 0o644, forced));
    last = { text, forced, stamp: fileStamp(path, "own") }; // "" when gone already: the next write writes
  };
}

/** writeState for a process about to exit (a force-quit): synchronous, still atomic. */
export function writeStateSync(path: string, state: State): void {
  ioSync("write", path, () => writeFileSafe(loopRoot(path), path, JSON.stringify(validForWriting(state), null, 2) + "\n"));
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
