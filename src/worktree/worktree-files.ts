/**
 * The repository's worktrees read from git's own files, with no process: what `git worktree list --porcelain -z`
 * prints, for `list`'s start-up (the git process was ~1.4 ms of CPU and the spawn machinery ~6M instructions
 * of `list`'s main thread: docs/performance.md). Read as git 2.39's worktree.c reads them: the main worktree is
 * the real path of the common git directory without its `/.git`; each linked one is a folder of
 * `<common>/worktrees/`, its path the `gitdir` file's without `/.git`, listed in the order of their paths
 * (a folder whose `gitdir` is missing or empty is not a worktree); each `HEAD` names a branch (`ref: refs/heads/…`,
 * its object id from the loose file, else `packed-refs`, else none yet: zeros) or holds the detached commit.
 *
 * Only the plain case is answered (worktree/find-top.ts's, and no more): anything this reader is not sure of —
 * a setting that moves the worktree or changes the refs' storage, a relative or odd `gitdir`, a worktree
 * being added (its `commondir` or `HEAD` not there yet), a symbolic or torn ref — gives null, and the caller
 * asks git, whose answer is the rule. test/fleet/worktree-files.test.ts compares the two in each layout.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { ListedWorktree } from "../checkpoint/worktree-list.ts";
import { findTop, setsKey } from "./find-top.ts";

const OBJECT_ID = /^[0-9a-f]{40}$/;
/** A config that changes how refs or objects are stored, or that the walk cannot follow: git decides. */
const UNUSUAL_CONFIG = new RegExp(`${setsKey("refstorage|objectformat|worktreeconfig|ignorecase")}|^\\s*\\[\\s*(include|includeif)\\b`, "im");

class Unsure extends Error {}

const read = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new Unsure();
  }
};

export function readWorktreeFiles(cwd: string, env: Record<string, string | undefined> = process.env): ListedWorktree[] | null {
  // findTop answers only when git would find this same worktree, the plain way (no setting moves it).
  const top = findTop(cwd, env);
  if (top === null) return null;
  try {
    const dotGit = join(top, ".git");
    let gitDir = dotGit;
    if (!lstatSync(dotGit).isDirectory()) {
      const link = read(dotGit) ?? "";
      const m = /^gitdir: (.+)$/m.exec(link);
      if (!m) return null;
      gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(top, m[1]!);
    }
    const commonFile = read(join(gitDir, "commondir"));
    const common = commonFile === null ? gitDir : resolve(gitDir, commonFile.trim());
    if (existsSync(join(common, "reftable")) || UNUSUAL_CONFIG.test(read(join(common, "config")) ?? "")) return null;
    const realCommon = realpathSync(common);
    if (basename(realCommon) !== ".git") return null; // a separate git directory: git names the main worktree its own way
    const packed = packedBranches(read(join(common, "packed-refs")));
    const entry = (path: string, adminDir: string): ListedWorktree => ({ path, ...headOf(adminDir, common, packed), bare: false });
    const list = [entry(dirname(realCommon), common)];
    let ids: string[] = [];
    try {
      ids = readdirSync(join(common, "worktrees"));
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") return null;
    }
    for (const id of ids) {
      const admin = join(common, "worktrees", id);
      const gitdir = read(join(admin, "gitdir"));
      if (gitdir === null || gitdir === "") continue; // git skips it too
      const path = gitdir.trimEnd();
      // What git 2.39 writes: the absolute path of the worktree's `.git` file. Anything else, git says.
      if (!isAbsolute(path) || !path.endsWith("/.git") || path.includes("\n")) return null;
      // Being added (`git worktree add` writes these file by file) or half removed: git's own reader retries.
      if (read(join(admin, "commondir")) === null) return null;
      list.push(entry(path.slice(0, -"/.git".length), admin));
    }
    // `git worktree list` sorts the linked ones by path, byte by byte (builtin/worktree.c pathsort: strcmp
    // without core.ignorecase, which sends the read to git above).
    const [main, ...linked] = list;
    return [main!, ...linked.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))];
  } catch {
    return null; // Unsure, or a file gone meanwhile: git answers
  }
}

/** `refs/heads/…` → object id, from `packed-refs` (its peeled `^` lines and its header aside). */
function packedBranches(text: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text?.split("\n") ?? []) {
    if (!line || line[0] === "#" || line[0] === "^") continue;
    const space = line.indexOf(" ");
    const sha = line.slice(0, space);
    if (!OBJECT_ID.test(sha)) throw new Unsure();
    out.set(line.slice(space + 1), sha);
  }
  return out;
}

/** What a worktree's `HEAD` says: its commit, and its branch unless detached. */
function headOf(adminDir: string, common: string, packed: Map<string, string>): { head: string; branch: string | null } {
  const text = read(join(adminDir, "HEAD"));
  if (text === null) throw new Unsure();
  const detached = text.trimEnd();
  if (OBJECT_ID.test(detached) && text === `${detached}\n`) return { head: detached, branch: null };
  const m = /^ref: (refs\/heads\/[^\s\\]+)\n$/.exec(text);
  if (!m || m[1]!.includes("..") || m[1]!.endsWith(".lock")) throw new Unsure();
  const branch = m[1]!;
  const loose = read(join(common, branch));
  if (loose !== null) {
    const sha = loose.trimEnd();
    if (!OBJECT_ID.test(sha) || loose !== `${sha}\n`) throw new Unsure(); // a symbolic ref, a folder, a torn write
    return { head: sha, branch };
  }
  // Not born yet (a new repository, `--orphan`): git prints the null id.
  return { head: packed.get(branch) ?? "0".repeat(40), branch };
}
