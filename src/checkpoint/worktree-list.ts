/** `git worktree list --porcelain -z`, parsed once for every reader (the fleet's list, the lanes of --parallel). */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { CommandError } from "../proc/spawn.ts";

export interface ListedWorktree {
  path: string;
  head: string | null;
  /** `refs/heads/…`, null when detached. */
  branch: string | null;
  /** The main entry of a bare repository (no tree to work in). */
  bare: boolean;
}

export function parseWorktreeList(out: string): ListedWorktree[] {
  const list: ListedWorktree[] = [];
  // Records end with an empty field; every field ends with NUL (paths may hold any character but NUL).
  let cur: ListedWorktree | null = null;
  for (const field of out.split("\0")) {
    if (field === "") cur = null;
    else if (field.startsWith("worktree ")) list.push((cur = { path: field.slice("worktree ".length), head: null, branch: null, bare: false }));
    else if (cur && field.startsWith("HEAD ")) cur.head = field.slice("HEAD ".length);
    else if (cur && field.startsWith("branch ")) cur.branch = field.slice("branch ".length);
    else if (cur && field === "bare") cur.bare = true;
  }
  return list;
}

/** What git says reading a worktree's admin folder that `git worktree add` has not finished writing. */
const HALF_ADDED = /\/worktrees\/[^/\n]+\/commondir\b/;
/** How long a read of every worktree waits for such a folder to be whole: an add writes it in milliseconds. */
const HALF_ADDED_WAIT_MS = 10_000;

/**
 * Runs `read`, a git that reads every worktree of the repository (`worktree list`, `for-each-ref` with
 * `%(worktreepath)`, `worktree add` and `remove`). `git worktree add` writes a new worktree's admin folder file by
 * file, and a git reading it between `commondir` being created and written dies "failed to read
 * …/worktrees/<name>/commondir": the next `--parallel` lane, another loop's, the user's. That folder is whole a
 * moment later, so the read is asked again (within `waitMs`, at most a few seconds: a folder an add killed midway
 * left so stays unreadable, and its error then says so, the folder made absolute from `cwd`, where git ran).
 */
export async function acrossWorktrees<T extends { stdout: string }>(read: () => Promise<T>, waitMs: number, cwd?: string): Promise<T> {
  const deadline = Date.now() + Math.min(waitMs, HALF_ADDED_WAIT_MS);
  while (true) {
    try {
      return await read();
    } catch (err) {
      const halfAdded = err instanceof CommandError && err.reason === "exit" && HALF_ADDED.test(err.stderr);
      if (!halfAdded) throw err;
      if (Date.now() > deadline) throw unreadable(err, cwd);
      await Bun.sleep(20 + Math.random() * 30);
    }
  }
}

/** The error of a read that never got past a half-written admin folder, saying which folder and what to do. */
function unreadable(err: CommandError, cwd = "."): CommandError {
  const folder = halfAddedFolder(err, cwd);
  if (!folder) return err;
  const why = `(still so after waiting: a \`git worktree add\` cut midway leaves its folder so; if no add is running, remove ${folder})`;
  return new CommandError(`${err.message} ${why}`, err.argv, err.reason, err.code, err.stderr);
}

/**
 * The absolute admin folder git could not read (`…/.git/worktrees/<name>`), or null when `err` is not that.
 * git names it absolute, or relative to the worktree's top (it moves there first), not to `cwd`: the folder
 * is looked for from `cwd` up.
 */
export function halfAddedFolder(err: unknown, cwd = "."): string | null {
  if (!(err instanceof CommandError) || !HALF_ADDED.test(err.stderr)) return null;
  // The path as git printed it: from the first word that starts one (the words around it are translated).
  const folder = /(?:^|\s)([./][^\n]*?\/worktrees\/[^/\n]+)\/commondir/m.exec(err.stderr)?.[1];
  if (!folder) return null;
  if (isAbsolute(folder)) return folder;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, folder))) return join(dir, folder);
    if (dir === dirname(dir)) return resolve(cwd, folder);
  }
}
