/**
 * Opening the files wt-loop writes without ever following a link it did not make. A repository can
 * commit `.claude/loop-events.jsonl` as a link to the user's `~/.bashrc`, and an agent can plant one
 * mid-run: every path wt-loop writes is checked with lstat from a trusted root (the worktree, the git
 * folder) down, component by component, and the last one is opened with O_NOFOLLOW; new files are
 * created with O_EXCL under random names. Node has no openat, so a link swapped in between the check
 * and the open of a folder is not caught; the last component always is (O_NOFOLLOW).
 */
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { UserError } from "../errors.ts";

const { O_NOFOLLOW, O_EXCL, O_CREAT, O_WRONLY, O_RDONLY, O_APPEND, O_TRUNC } = constants;

/** A link where wt-loop writes (or reads its state): refused, whoever planted it. */
export class LinkRefused extends UserError {
  constructor(readonly link: string) {
    const shown = showPath(link);
    let to = "";
    try {
      to = ` (to ${readlinkSync(link)})`;
    } catch {
      // gone again meanwhile
    }
    super(`${shown} is a symbolic link${to}; wt-loop never writes through links it did not make. Remove it: rm ${shown}`);
  }
}

/** Relative to the current folder when inside it (what the user types), else absolute. */
function showPath(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : p;
}

/**
 * The folders and file from `root` (trusted: the user chose it) down to `path`, checked with lstat:
 * the first link is refused. Stops at the first one missing (nothing there to follow yet).
 */
export function refuseLinks(root: string, path: string): void {
  const rel = relative(root, path);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`wt-loop tried to write ${path} outside ${root}`);
  let at = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    at = join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink()) throw new LinkRefused(at);
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return;
      throw err;
    }
  }
}

/** An ELOOP from O_NOFOLLOW (a link swapped in after the check) becomes the same refusal. */
function guarded<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if ((err as { code?: string }).code === "ELOOP") throw new LinkRefused(path);
    throw err;
  }
}

/** `mkdir -p` of `dir` under `root`, one folder at a time, none of them a link. */
export function makeDir(root: string, dir: string): void {
  refuseLinks(root, dir);
  const rel = relative(root, dir);
  let at = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    at = join(at, part);
    try {
      mkdirSync(at);
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
      const st = lstatSync(at);
      if (st.isSymbolicLink()) throw new LinkRefused(at);
      if (st.isFile() && movingAside && at === join(root, LOOP_DIR)) moveAside(at);
    }
  }
}

/** The folder every file of the loop lives in, under the worktree (state/paths.ts names the files in it). */
export const LOOP_DIR = ".claude";
const ASIDE = ".moved-by-wt-loop";
const displaced: { file: string; to: string }[] = [];
/** Only while a loop runs (its agent or --verify may do it): before, a file there is the user's, and start refuses. */
let movingAside = false;

export function moveAsideWhileRunning(on: boolean): void {
  movingAside = on;
}

/**
 * A file where the loop's folder belongs (an agent's `rm -rf .claude && echo … > .claude`) would leave
 * the loop nowhere to write its events, logs or state. It is someone's output, so it is kept: renamed
 * next to it (`.claude.moved-by-wt-loop`, numbered when taken), and the folder is made again. The
 * runner tells the user (takeDisplaced); the checkpoint treats the file as any other of the attempt's.
 */
function moveAside(at: string): void {
  let to = `${at}${ASIDE}`;
  for (let n = 2; existsHere(to); n++) to = `${at}${ASIDE}.${n}`;
  renameSync(at, to);
  displaced.push({ file: at, to });
  mkdirSync(at);
}

/** Whether anything is at `p`, a link included (not followed: a dangling link exists too). */
export const existsHere = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/** The files moved out of the loop's folder's way since the last call (makeDir). */
export function takeDisplaced(): { file: string; to: string }[] {
  return displaced.splice(0);
}

export type OpenMode = "read" | "append" | "truncate" | "create";
const FLAGS: Record<OpenMode, number> = {
  read: O_RDONLY,
  append: O_WRONLY | O_APPEND | O_CREAT,
  truncate: O_WRONLY | O_TRUNC | O_CREAT,
  create: O_WRONLY | O_CREAT | O_EXCL,
};

/** Opens `path` (under `root`) never through a link; writing modes make its folder first. */
export function openSafe(root: string, path: string, mode: OpenMode): number {
  if (mode === "read") refuseLinks(root, path);
  else makeDir(root, dirname(path));
  refuseLinks(root, path);
  return guarded(path, () => openSync(path, FLAGS[mode] | O_NOFOLLOW, 0o644));
}

// Web Crypto is built in; node:crypto would be a module to load at start-up for these 6 bytes.
const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Writes `path` whole, atomically: a fresh temp file (random name, O_EXCL, `mode`), forced to the disk
 * (fsync), then a rename over it. `forced: false` leaves out the fsync (the loop state's writes a
 * restart does not need, record/store.ts): a kill -9 still never leaves a torn file, as the rename
 * makes a whole file visible and the page cache outlives the process; only a power cut may lose it.
 */
export function writeFileSafe(root: string, path: string, data: string, mode = 0o644, forced = true): void {
  writeWhole(root, path, data, mode, forced);
}

/**
 * writeFileSafe for a record a person reads (an iteration's prompt, the placeholder of its diff), not
 * one wt-loop decides by: atomic and never through a link as well, but not forced to the disk first —
 * the agent's own log beside it never is, and an fsync was ~9 ms of an iteration on this loaded machine
 * (docs/performance.md). After a power loss it may be empty; nothing reads it to decide anything.
 */
export function writeRecordSafe(root: string, path: string, data: string): void {
  writeWhole(root, path, data, 0o644, false);
}

function writeWhole(root: string, path: string, data: string, mode: number, durable: boolean): void {
  makeDir(root, dirname(path));
  refuseLinks(root, path);
  const tmp = `${path}.${process.pid}.${randomHex(6)}.tmp`;
  const fd = guarded(tmp, () => openSync(tmp, FLAGS.create | O_NOFOLLOW, mode));
  try {
    try {
      writeSync(fd, data);
      // On disk before the rename gives it the name: else a crash can leave an empty or torn file there.
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // rename replaces a link at `path` rather than following it; the check above refused one anyway.
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The temp file name writeFileSafe gives `<name>` while it writes: `<name>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes from `dir` (under `root`, not its subfolders) the temp files of writeFileSafe whose writer is
 * gone (`gone(pid)`): a kill -9 between the write and the rename leaves one. Returns the names removed.
 */
export function removeDeadTemps(root: string, dir: string, gone: (pid: number) => boolean): string[] {
  let names: string[];
  try {
    refuseLinks(root, dir);
    names = readdirSync(dir);
  } catch {
    return []; // no folder (or a link there): nothing of ours to remove
  }
  const dead = names.filter((n) => {
    const pid = TEMP_NAME.exec(n)?.[1];
    return pid !== undefined && Number(pid) !== process.pid && gone(Number(pid));
  });
  for (const n of dead) rmSync(join(dir, n), { force: true }); // a link is removed, not followed
  return dead;
}

/** Moves `from` to `to` (both under `root`): a rename never follows a link, its folders are checked. */
export function renameSafe(root: string, from: string, to: string): void {
  refuseLinks(root, from);
  makeDir(root, dirname(to));
  refuseLinks(root, to);
  renameSync(from, to);
}

/**
 * Removes the file (or link) `path` under `root`, never through a link on the way (LinkRefused) and never a
 * folder: one there now is not the file that was written, and is left ("folder"). "absent": nothing was there.
 */
export function removeFileSafe(root: string, path: string): "removed" | "absent" | "folder" {
  refuseLinks(root, dirname(path));
  try {
    if (lstatSync(path).isDirectory()) return "folder";
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return "absent";
    throw err;
  }
  rmSync(path, { force: true }); // a link itself, not what it points to
  return "removed";
}

/** Removes `path` (a folder and what is in it): the path to it must hold no link; links inside are removed, not followed. */
export function removeSafe(root: string, path: string): void {
  refuseLinks(root, dirname(path));
  rmSync(path, { recursive: true, force: true });
}

/**
 * The worktree a loop file belongs to: the folder holding its last `.claude` component (every file
 * the loop writes lives under `<worktree>/.claude/`); a path without one is checked from its folder.
 */
export function loopRoot(path: string): string {
  const at = path.lastIndexOf(`${sep}${LOOP_DIR}${sep}`);
  return at > 0 ? path.slice(0, at) : dirname(path);
}

/** Truncates (or creates) a log file of the run, made fresh, never through a link. */
export function openLogSafe(path: string): number {
  return openSafe(loopRoot(path), path, "truncate");
}

/** Appends to a log file of the run (a process's output), never through a link. */
export function appendLogSafe(path: string): number {
  return openSafe(loopRoot(path), path, "append");
}
