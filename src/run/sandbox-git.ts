/**
 * The worktree a sandboxed command runs in, and its git dirs. wt-loop's own git (its checkpoints) and
 * yours run outside the sandbox, and git runs what its files tell it to (`core.fsmonitor`, hooks) or
 * opens the repository they point at (`commondir`, `gitdir`). So the git dirs are writable only where
 * git itself writes while it works — an allow-list, not a list of files to protect that may not exist
 * yet:
 *
 * - a linked worktree (`git worktree add`, and every lane of `--parallel`): the top of the common git
 *   dir is read-only, with its `objects`, `refs` and `logs` writable (what a commit writes there); its
 *   own folder in `.git/worktrees/` is writable for its index and HEAD; every other worktree's folder
 *   stays read-only;
 * - in both, the names at the top of the worktree's own git dir that git never writes there (`config`,
 *   `hooks`, `commondir`, `gitdir`, `worktrees`, `modules`…) are bound read-only when they exist, and
 *   removed as soon as the command ends when it made them: git writes its index and HEAD by creating a
 *   file beside them and renaming it, so that folder cannot be read-only and a new name can appear in it.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Mount, Place } from "../proc/sandbox.ts";

/** Names git writes at the top of a git dir while it works (a commit, a merge, a rebase, a gc). */
const GIT_WRITES = new RegExp(
  "^(index|HEAD|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|MERGE_MSG|MERGE_MODE|MERGE_RR|AUTO_MERGE|CHERRY_PICK_HEAD|REVERT_HEAD|REBASE_HEAD|BISECT_[A-Z_]+|" +
    "COMMIT_EDITMSG|TAG_EDITMSG|SQUASH_MSG|NOTES_[A-Z_]+|packed-refs|objects|refs|logs|sequencer|rebase-merge|rebase-apply|rr-cache|" +
    "gc\\.pid|gc\\.log|sharedindex\\.[0-9a-f]+|index\\.stash\\.\\d+|[^/]+\\.lock)$",
);
/** What a commit in a linked worktree writes in the common git dir. */
const COMMON_WRITES = ["objects", "refs", "logs"];
/** wt-loop's own (its lanes, its notes of usage limits): made outside the sandbox, while a command may run. */
const WT_LOOP = /^wt-loop/;

export interface GitDirs {
  gitDir: string;
  commonDir: string;
  /** A linked worktree's `.git` file (its pointer to its git dir). */
  dotGitFile: string | null;
}

/** Where `worktree`'s git dirs are, read as git reads them: `.git` (a folder, or a file naming one), then its `commondir`. */
export function gitDirsOf(worktree: string): GitDirs | null {
  const dotGit = join(worktree, ".git");
  let isFile: boolean;
  try {
    const st = lstatSync(dotGit);
    if (!st.isFile() && !st.isDirectory()) return null;
    isFile = st.isFile();
  } catch {
    return null;
  }
  let gitDir = dotGit;
  if (isFile) {
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (!m) return null;
    gitDir = resolve(worktree, m[1]!.trim());
  }
  const pointer = join(gitDir, "commondir");
  const commonDir = existsSync(pointer) ? resolve(gitDir, readFileSync(pointer, "utf8").trim()) : gitDir;
  return { gitDir, commonDir, dotGitFile: isFile ? dotGit : null };
}

/**
 * What git reads but may be missing is made first, empty, so that it is bound read-only like the rest:
 * a `hooks` and `info` folder, wt-loop's folder, and an empty `config.worktree` (read only with
 * `extensions.worktreeConfig`, and empty it sets nothing).
 */
function makeMissing(d: GitDirs): void {
  for (const f of ["hooks", "info", "wt-loop"]) if (!existsSync(join(d.commonDir, f))) mkdirSync(join(d.commonDir, f), { recursive: true });
  const wtConfig = join(d.gitDir, "config.worktree");
  if (!existsSync(wtConfig)) writeFileSync(wtConfig, "", { flag: "wx" });
}

/** Removes what the command made at the top of `gitDir` that git never writes there; says what it removed. */
function sweep(gitDir: string, before: Set<string>): string[] {
  const said: string[] = [];
  let names: string[];
  try {
    names = readdirSync(gitDir);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return []; // a lane removed meanwhile: nothing left to read it
    throw err;
  }
  for (const name of names) {
    if (before.has(name) || GIT_WRITES.test(name) || WT_LOOP.test(name)) continue;
    const path = join(gitDir, name);
    rmSync(path, { recursive: true, force: true });
    said.push(
      `wt-loop: removed ${path}, made by the sandboxed command: git never writes it there, and wt-loop's git or yours would have read it (docs/security.md).`,
    );
  }
  return said;
}

/** The mounts of a command run in `worktree` (its own folder, its git dirs), and the sweep after it. */
export function worktreePlace(worktree: string): Place {
  const dirs = gitDirsOf(worktree);
  if (!dirs || !existsSync(dirs.gitDir)) return { mounts: [["rw", worktree]] };
  makeMissing(dirs);
  const { gitDir, commonDir, dotGitFile } = dirs;
  const mounts: Mount[] = [];
  if (gitDir !== commonDir) mounts.push(["ro", commonDir], ...COMMON_WRITES.map((d): Mount => ["rw", join(commonDir, d)]));
  mounts.push(["rw", worktree], ["rw", gitDir]);
  const before = new Set(readdirSync(gitDir));
  for (const name of [...before].sort()) if (!GIT_WRITES.test(name)) mounts.push(["ro", join(gitDir, name)]);
  if (dotGitFile) mounts.push(["ro", dotGitFile]);
  return { mounts, settle: () => sweep(gitDir, before) };
}
