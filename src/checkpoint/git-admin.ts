/**
 * The files that tell git where a worktree's repository is: a linked worktree's `.git` file (`gitdir:
 * …`), and `commondir` in its folder under `.git/worktrees/` (always `../..` as git writes it; a main
 * repository's `.git` has none). An agent that writes one makes every later git there read another
 * repository — one whose config sets `core.fsmonitor` runs a command as the user on each `git status`.
 *
 * wt-loop's own git never reads them after start (git-hardening.ts pins the folders). The user's git
 * does, so (docs/security.md):
 * - at start, a worktree whose files do not say what git would have written is refused, naming the file:
 *   wt-loop cannot tell who wrote it;
 * - after each agent run and --verify command, any of these files of the repository that changed since
 *   start is put back as git wrote it (a planted main `commondir` removed), and the loop says so and goes on:
 *   nothing but the agent or its command can have changed it meanwhile.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UserError } from "../errors.ts";
import type { GitDirs } from "../proc/git-hardening.ts";
import { allPinned } from "../proc/git-hardening.ts";
import { realOrNull } from "../proc/real-path.ts";
import { removeSafe, writeFileSafe } from "../proc/safe-fs.ts";

/** Resolved, or absolute as given when it does not exist (yet). */
const real = (p: string) => realOrNull(p) ?? resolve(p);
const read = (p: string): string | null => {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, "utf8") : `(not a file)`;
  } catch {
    return null;
  }
};

/** Whether `dirs` are what git itself would have made; else what is wrong, for the user. */
export function layoutProblem(dirs: GitDirs): string | null {
  const underWorktrees = basename(dirname(dirs.gitDir)) === "worktrees";
  const expected = underWorktrees ? dirname(dirname(dirs.gitDir)) : dirs.gitDir;
  if (real(dirs.commonDir) !== real(expected))
    return (
      `${join(dirs.gitDir, "commondir")} points at ${dirs.commonDir}, not at the repository ${expected} that holds it: ` +
      `git would read that repository's config and run what it says.`
    );
  if (underWorktrees) {
    const back = read(join(dirs.gitDir, "gitdir"))?.trim();
    if (back && real(dirname(resolve(dirs.gitDir, back))) !== real(dirs.workTree))
      return (
        `${join(dirs.workTree, ".git")} names ${dirs.gitDir}, which belongs to the worktree ${dirname(back)}: ` +
        `git would work there with another worktree's index and HEAD.`
      );
  }
  return null;
}

/** Refuses a worktree whose git files were not written by git (layoutProblem), with what to do. */
export function refuseBadLayout(dirs: GitDirs): void {
  const problem = layoutProblem(dirs);
  if (problem)
    throw new UserError(
      `${problem} wt-loop does not run git in this worktree until that is put right. If you did not set it up this way, ` +
        `restore it: for a main repository remove ${join(dirs.gitDir, "commondir")}; for a linked worktree run \`git worktree repair\` from the main one.`,
    );
}

/** The files that locate a repository's git folders, and their content (null: absent). */
function locators(commonDir: string): Map<string, string | null> {
  const files = new Map<string, string | null>([[join(commonDir, "commondir"), read(join(commonDir, "commondir"))]]);
  let admins: string[] = [];
  try {
    admins = readdirSync(join(commonDir, "worktrees"));
  } catch {
    // no linked worktree
  }
  for (const a of admins) files.set(join(commonDir, "worktrees", a, "commondir"), read(join(commonDir, "worktrees", a, "commondir")));
  for (const p of allPinned())
    if (real(p.commonDir) === real(commonDir) && p.gitDir !== p.commonDir) files.set(join(p.workTree, ".git"), read(join(p.workTree, ".git")));
  return files;
}

/** Whether a new worktree's `commondir` or `.git` file, as written, leads to `target` (git may write either path relative). */
function leadsWhereGitWould(file: string, text: string, target: string): boolean {
  const named = basename(file) === ".git" ? /^gitdir: (.+)$/m.exec(text)?.[1] : text.trim();
  return named !== undefined && real(resolve(dirname(file), named)) === real(target);
}

/**
 * An empty `commondir` in an admin folder is what `git worktree add` has for a moment (another lane's, another
 * loop's, the user's), not damage: git locks the folder ("initializing") before it writes any file there and
 * unlocks it once `commondir` is written. So it is left alone (null) while that lock is there; without it, the
 * file is read again (the add ended meanwhile: written now) and judged as it is.
 */
function unlessBeingAdded(file: string, commonDir: string): string | null {
  if (file === join(commonDir, "commondir") || basename(file) !== "commondir") return "";
  if (read(join(dirname(file), "locked")) !== null) return null;
  return read(file);
}

const seen = new Map<string, Map<string, string | null>>();

/** Records the repository's locator files as they are now (the first git call of a run, before any agent). */
export function recordLocators(commonDir: string): void {
  if (seen.has(commonDir)) return;
  const files = locators(commonDir);
  // An admin folder's `commondir` absent or half written is a worktree being added (another loop's lane, the user's):
  // not recorded, or the first repair would put that state back over what git writes next. Judged as a new one's.
  for (const [file, text] of files)
    if (basename(file) === "commondir" && file !== join(commonDir, "commondir")) {
      const settled = text === "" ? unlessBeingAdded(file, commonDir) : text;
      if (settled === null) files.delete(file);
      else files.set(file, settled);
    }
  seen.set(commonDir, files);
}

/**
 * Puts back each locator file of the repository that changed since it was recorded (a new linked
 * worktree's own files, `../..` and its `gitdir:` line, are what git writes and stay); returns a sentence
 * per file put back, for the loop to say. Nothing is followed: a file replaced by a link is replaced again.
 */
export function repairLocators(commonDir: string): string[] {
  const before = seen.get(commonDir);
  if (!before) return [];
  const said: string[] = [];
  const pins = allPinned();
  for (const [file, found] of locators(commonDir)) {
    const now = found === "" ? unlessBeingAdded(file, commonDir) : found;
    if (now === null) continue; // gone (a worktree removed), or being added: git finds nothing there to follow
    const owner = pins.find((p) => join(p.workTree, ".git") === file);
    // What git writes: a main repository has no commondir, an admin folder's is ../.., a worktree's .git names its admin folder.
    const right = file === join(commonDir, "commondir") ? null : owner ? `gitdir: ${owner.gitDir}\n` : "../..\n";
    const was = before.has(file) ? before.get(file)! : right;
    if (now.trim() === was?.trim()) continue;
    // git wrote it another way (a relative path)
    if (!before.has(file) && right !== null && leadsWhereGitWould(file, now, owner?.gitDir ?? commonDir)) continue;
    const root = owner ? owner.workTree : commonDir;
    let done: string;
    try {
      if (was === null) removeSafe(root, file);
      else writeFileSafe(root, file, was);
      done = was === null ? "removed it" : "put back what it held";
    } catch (err) {
      done = `could not put it back (${(err as Error).message}): remove or repair it before you run git there`;
    }
    said.push(
      `${file} was ${now === "(not a file)" ? "replaced" : `set to ${JSON.stringify(now.trim().slice(0, 200))}`} ` +
        `during the attempt (by the agent or a command of the loop): ` +
        `git there would read another repository's config and run what it says. wt-loop ${done}; its own git never read it.`,
    );
  }
  return said;
}
