/**
 * The local branches read from git's own files, with no process: what `git for-each-ref refs/heads` with
 * `%(HEAD)` and `%(worktreepath)` tells, which refs.ts asked twice an attempt (a git process each, ~13 ms of
 * CPU on a loaded machine: docs/performance.md). git keeps branches as loose files under `refs/heads/`, which
 * win over the lines of `packed-refs`; each worktree's `HEAD` names the branch it has checked out. Anything
 * this reader is not sure of — a reftable repository, a symbolic or unreadable ref, a name git itself would
 * not list — gives null, and the caller asks git.
 *
 * Read as git reads them: the loose files first, then `packed-refs` — a `pack-refs` or a delete rewrites
 * `packed-refs` before it removes a loose file, so a loose file gone meanwhile is in the newer `packed-refs`.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { GitDirs } from "../proc/git-hardening.ts";

export interface RefEntry {
  ref: string;
  sha: string;
  /** HEAD of this worktree is on it. */
  current: boolean;
  /** Checked out in another worktree of the repository (not this one's HEAD). */
  elsewhere: boolean;
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** A name git lists as a branch (check_refname_format, kept strict: anything else is left to git). */
const COMPONENT = /^(?!\.)(?!.*\.\.)(?!.*@\{)[^\x00-\x20\x7f~^:?*[\\]+(?<![.])$/;

const validBranch = (ref: string) =>
  ref
    .slice("refs/heads/".length)
    .split("/")
    .every((c) => COMPONENT.test(c) && !c.endsWith(".lock"));

class Unsure extends Error {}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw new Unsure(); // unreadable: git would say more
  }
};

const isDir = (path: string) => {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false; // removed meanwhile
  }
};

/** The branch a `HEAD` file names (`ref: refs/heads/…`), null when detached or absent. */
function headRef(path: string): string | null {
  const text = read(path);
  const m = text === null ? null : /^ref: (refs\/heads\/\S+)\n?$/.exec(text);
  return m ? m[1]! : null;
}

/** Every `refs/heads/…` with its object id, or null when git must be asked. */
export function readBranchFiles(dirs: GitDirs): RefEntry[] | null {
  const common = dirs.commonDir;
  try {
    // A repository that keeps refs in a reftable has no loose files to read.
    if (existsSync(join(common, "reftable"))) return null;
    const found = new Map<string, string>();
    const walk = (dir: string, prefix: string) => {
      let names;
      try {
        names = readdirSync(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return;
        throw new Unsure();
      }
      for (const d of names) {
        const ref = `${prefix}/${d.name}`;
        // A file being written (`<branch>.lock`, renamed over the branch when done) is not a branch.
        if (d.name.endsWith(".lock")) continue;
        if (!COMPONENT.test(d.name)) throw new Unsure();
        if (d.isDirectory()) walk(join(dir, d.name), ref);
        else if (d.isFile()) {
          const text = read(join(dir, d.name));
          if (text === null) continue; // deleted or packed meanwhile: packed-refs, read next, has it
          const sha = text.trim();
          if (!OBJECT_ID.test(sha)) throw new Unsure(); // a symbolic ref, or not what git writes
          found.set(ref, sha);
        } else throw new Unsure(); // a link (an old symbolic ref), a fifo…
      }
    };
    walk(join(common, "refs", "heads"), "refs/heads");
    const packed = read(join(common, "packed-refs"));
    for (const line of packed?.split("\n") ?? []) {
      if (!line || line[0] === "#" || line[0] === "^") continue;
      const space = line.indexOf(" ");
      const [sha, ref] = [line.slice(0, space), line.slice(space + 1)];
      if (!OBJECT_ID.test(sha)) throw new Unsure();
      if (ref.startsWith("refs/heads/") && !found.has(ref)) {
        if (!validBranch(ref)) throw new Unsure();
        found.set(ref, sha);
      }
    }
    const here = headRef(join(dirs.gitDir, "HEAD"));
    const others = otherHeads(dirs);
    return [...found].map(([ref, sha]) => ({ ref, sha, current: ref === here, elsewhere: ref !== here && others.has(ref) }));
  } catch (err) {
    if (err instanceof Unsure) return null;
    throw err;
  }
}

/**
 * The branches the repository's other worktrees have checked out: the main one's `HEAD` (when this is a
 * linked worktree) and each linked one's that git lists (`worktrees/<id>/` with its `gitdir` file), this one's
 * own aside.
 */
function otherHeads(dirs: GitDirs): Set<string> {
  const out = new Set<string>();
  const me = resolve(dirs.gitDir);
  const add = (gitDir: string) => {
    if (resolve(gitDir) === me) return;
    const ref = headRef(join(gitDir, "HEAD"));
    if (ref) out.add(ref);
  };
  add(dirs.commonDir);
  let ids: string[] = [];
  try {
    ids = readdirSync(join(dirs.commonDir, "worktrees"));
  } catch (err) {
    if ((err as { code?: string }).code !== "ENOENT") throw new Unsure();
  }
  for (const id of ids) {
    const admin = join(dirs.commonDir, "worktrees", id);
    // git skips a worktree whose `gitdir` file is missing or empty (worktree.c, get_linked_worktree).
    if (isDir(admin) && read(join(admin, "gitdir"))) add(admin);
  }
  return out;
}
