/**
 * Snapshots of the worktree that never touch it: trees written from private index files
 * (GIT_INDEX_FILE), and the one way back to a snapshot used by both strategies.
 *
 * A snapshot has the shape `git stash push -u` gives a stash: `index` (what was staged), `work`
 * (the tracked files as they were in the tree), `untracked` (untracked, non-ignored files) and
 * `full` (work + untracked: the tree a revert returns to). Files marked `--assume-unchanged` are
 * never read or written by the harness: their local content stays as it is.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileStamp } from "../proc/file-stamp.ts";
import type { Git } from "./git.ts";

export interface Snapshot {
  head: string;
  index: string;
  /**
   * The real index file's stamp (proc/file-stamp.ts) when `index` was read from it, unchanged while it was copied;
   * absent when it changed meanwhile or had conflicts. While the file keeps it, the real index is `index` already.
   */
  indexStamp?: string;
  work: string;
  untracked: string | null;
  full: string;
}

const nul = (out: string) => out.split("\0").filter((p) => p !== "");

/** Paths marked `--assume-unchanged` in the real index (`git ls-files -v` shows them lowercase). */
export async function assumeUnchanged(git: Git): Promise<string[]> {
  return nul((await git.run(["ls-files", "-v", "-z"])).stdout)
    .filter((l) => /^[a-z] /.test(l))
    .map((l) => l.slice(2));
}

/**
 * The ignored paths present now (folders collapsed: `node_modules/` is one entry). Recorded before
 * each attempt: a revert never deletes them, even when the agent removed the rule that ignored them
 * (a deleted `.gitignore`, an emptied `info/exclude`) and they look like untracked files of its own.
 */
export async function ignoredPaths(git: Git): Promise<string[]> {
  return nul((await git.run(["ls-files", "-o", "-i", "--exclude-standard", "--directory", "-z"])).stdout);
}

/**
 * Of the ignored paths present when attempts began, those that are gone now (an agent's
 * `git clean -fdx`, `rm -rf`): git never held them, so no checkpoint can bring them back, and the
 * user must be told. The loop's own files (`.claude/…`) are put back by the runner, not reported.
 */
export function deletedIgnored(cwd: string, ignored: string[]): string[] {
  return ignored.filter((p) => !p.startsWith(".claude/") && !existsSync(join(cwd, p)));
}

const isProtected = (path: string, protect: string[]) => protect.some((p) => path === p || (p.endsWith("/") && path.startsWith(p)));

/**
 * `last`: a snapshot taken before by the caller, whose index tree is this one's too while the real index is still
 * the file it was read from (a git process less: a stash checkpoint's stories follow each other with the index
 * untouched, its revert of a tree left as it was writes none). The caller makes sure that tree still exists.
 */
export async function takeSnapshot(git: Git, head: string, last?: Pick<Snapshot, "index" | "indexStamp">): Promise<Snapshot> {
  const realIndex = await git.gitPath("index");
  const before = fileStamp(realIndex, "own");
  return git.withTempIndex(async (env) => {
    const copied = before !== "" && fileStamp(realIndex, "own") === before; // the copy is of the file `before` names
    // The untracked files are listed beside the rest: `add -u` and `write-tree` change no path's being tracked
    // (a file `add -u` removes is gone from the tree), and the index file is replaced whole (lock + rename).
    const others = git.run(["ls-files", "-o", "--exclude-standard", "-z"], { env });
    others.catch(() => {}); // awaited below; a failure meanwhile is not unhandled
    // An index with conflicts has no tree; the tree as it is then stands for it.
    const known = copied && last?.indexStamp === before ? last.index : null;
    const staged = known ? { code: 0, stdout: known } : await git.run(["write-tree"], { env, allowFailure: true });
    await git.run(["add", "-u"], { env });
    const work = (await git.run(["write-tree"], { env })).stdout.trim();
    const index = staged.code === 0 ? staged.stdout.trim() : work;
    const indexStamp = copied && staged.code === 0 ? before : undefined;
    const untrackedPaths = nul((await others).stdout).filter((p) => !p.endsWith("/"));
    if (!untrackedPaths.length) return { head, index, indexStamp, work, untracked: null, full: work };
    await git.run(["update-index", "--add", "-z", "--stdin"], { env, input: untrackedPaths.join("\0") + "\0" });
    const full = (await git.run(["write-tree"], { env })).stdout.trim();
    // The untracked tree from the entries just hashed (`ls-files -s` is what --index-info reads).
    const wanted = new Set(untrackedPaths);
    const entries = nul((await git.run(["ls-files", "-s", "-z"], { env })).stdout).filter((l) => wanted.has(l.slice(l.indexOf("\t") + 1)));
    const untracked = await git.withTempIndex(
      async (uenv) => {
        await git.run(["update-index", "-z", "--index-info"], { env: uenv, input: entries.join("\0") + "\0" });
        return (await git.run(["write-tree"], { env: uenv })).stdout.trim();
      },
      { empty: true },
    );
    return { head, index, indexStamp, work, untracked, full };
  });
}

/** The index commit (I) of the last entry a stash checkpoint made: the next story's is the same while the index and HEAD are. */
export interface IndexCommit {
  key: string;
  sha: string;
}

/**
 * A commit shaped like the ones `git stash push -u` makes (W with parents HEAD, I and U), so
 * `git stash list` shows it and a user's `git stash apply <sha>` brings everything back. `last`: the index commit
 * the caller made last (updated here): reused when it holds the same index on the same HEAD, a git process less a
 * story. It is unreachable once its entry was dropped, so a `git gc --prune=now` may have deleted it: then `commit-tree`
 * refuses the missing parent, and it is made again.
 */
export async function stashCommit(git: Git, s: Snapshot, label: string, message: string, last?: { index?: IndexCommit }): Promise<string> {
  const subject = await git.describeCommit(s.head);
  const key = `${s.index} ${s.head} ${label}: ${subject}`;
  const makeIndex = async () => {
    const sha = await git.commitTree(s.index, [s.head], `index on ${label}: ${subject}`);
    if (last) last.index = { key, sha };
    return sha;
  };
  const reused = last?.index?.key === key ? last.index.sha : null;
  const i = reused ?? (await makeIndex());
  const u = s.untracked ? await git.commitTree(s.untracked, [], `untracked files on ${label}: ${subject}`) : null;
  const w = (index: string) => git.commitTree(s.work, [s.head, index, ...(u ? [u] : [])], `On ${label}: ${message}`);
  return reused ? w(i).catch(async () => w(await makeIndex())) : w(i);
}

/**
 * Puts the tree and the index back to a snapshot, HEAD having been put back already:
 * 1. the snapshot's files are written where the tree differs (so its own .gitignore is in place);
 * 2. untracked files that are not ignored by that .gitignore and not in the snapshot are deleted —
 *    ignored files and directories are never touched (no `clean -d`), nor is anything that was
 *    ignored when the attempt began (`protect`, from ignoredPaths);
 * 3. the real index becomes the snapshot's index (what was staged is staged again).
 */
export async function restoreSnapshot(git: Git, s: Pick<Snapshot, "full" | "index">, keep: string[], protect: string[] = []): Promise<void> {
  const kept = new Set(keep);
  await git.withTempIndex(async (env) => {
    // --reset keeps the stat data of entries it does not change, so diff-files lists only what was
    // touched (a file touched but equal is rewritten with its own content: harmless, and no refresh pass).
    await git.run(["read-tree", "--reset", s.full], { env });
    const differ = nul((await git.run(["diff-files", "--name-only", "-z"], { env })).stdout).filter((p) => !kept.has(p));
    if (differ.length) await git.run(["checkout-index", "-f", "-z", "--stdin"], { env, input: differ.join("\0") + "\0" });
    // Listed after the snapshot's files are back: its own .gitignore decides what is untracked (not an agent's edit of it).
    const extra = nul((await git.run(["ls-files", "-o", "--exclude-standard", "-z"], { env })).stdout).filter(
      (p) => !p.endsWith("/") && !isProtected(p, protect),
    );
    for (const p of extra) await rm(join(git.ctx.cwd, p), { force: true });
  });
  await setIndex(git, s.index, keep);
}

/**
 * Puts back a snapshot's index alone, the tree being the snapshot's already: nothing at all while the real index is
 * the file the snapshot read it from (its stamp unchanged).
 */
export async function restoreIndex(git: Git, s: Pick<Snapshot, "index" | "indexStamp">, keep: string[]): Promise<void> {
  if (s.indexStamp && fileStamp(await git.gitPath("index"), "own") === s.indexStamp) return;
  await setIndex(git, s.index, keep);
}

/**
 * The real index becomes `tree`, keeping the `--assume-unchanged` marks the user had. No refresh:
 * entries whose stat data went stale are re-hashed by the next `git status`, which is all it costs.
 */
export async function setIndex(git: Git, tree: string, keep: string[]): Promise<void> {
  await git.run(["read-tree", "--reset", tree]);
  if (keep.length) await git.run(["update-index", "--assume-unchanged", "-z", "--stdin"], { input: keep.join("\0") + "\0" });
}
