/**
 * `refs/stash` is shared by every worktree of a repository: another loop (or the user) may push or
 * drop at any moment. wt-loop's own stores and drops are serialized by a lock file in the common
 * git dir, git's ref-lock contention is retried, and an entry is only ever named by its object id:
 * its `stash@{N}` is looked up under the lock right before the drop, and a drop that removed another
 * entry (a user's push slipped in between) is undone at once.
 */
import { existsSync } from "node:fs";
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileStamp } from "../proc/file-stamp.ts";
import { isAlive } from "../proc/pid.ts";
import type { Git } from "./git.ts";

const RETRY_MS = 50;

async function withStashLock<T>(git: Git, fn: () => Promise<T>): Promise<T> {
  const lock = join(await git.commonDir(), "wt-loop-stash.lock");
  const deadline = Date.now() + (git.ctx.timeoutMs ?? 30_000);
  while (true) {
    try {
      const fh = await open(lock, "wx");
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
      const owner = Number(await readFile(lock, "utf8").catch(() => ""));
      // A lock whose owner died (SIGKILL) is stale; an empty one may be being written: wait.
      if (owner && !isAlive(owner)) await rm(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`the stash lock ${lock} is held by pid ${owner || "?"}`);
      else await Bun.sleep(RETRY_MS);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

const retryingRefLock = async (git: Git, args: string[]) => {
  const r = await git.runRetryingLocks(args);
  return r.stdout + r.stderr;
};

/**
 * `git stash list --format=…` in one process: `stash list` is a builtin that starts a second git for exactly this
 * `log`. The ref is named by a pattern that only it matches: without `refs/stash` the list is empty (exit 0), as
 * `stash list` says, where naming it fails.
 */
function stashLog(git: Git, format: string) {
  return git.run(["log", "-g", "--first-parent", `--format=${format}`, "--glob=refs/stas[h]", "--"], { allowFailure: true });
}

export interface StashEntry {
  sha: string;
  /** Its reflog subject (`On main: …`). */
  subject: string;
}

/**
 * The last listing, by the stash reflog's path. `git stash list` reads `refs/stash` and its reflog, and git replaces
 * those files (lock file + rename) on every change: while their inode, size, mtime and ctime are those of the last
 * listing, the list is the same and no git process is needed (docs/performance.md). They are in the folder every
 * worktree shares. A reftable repository keeps refs elsewhere: git is asked every time.
 */
const lastListing = new Map<string, { stamp: string; entries: StashEntry[] }>();

/** Every entry of `git stash list`, newest first. */
export async function stashEntries(git: Git): Promise<StashEntry[]> {
  const common = await git.commonDir();
  const [log, ref, packed] = ["logs/refs/stash", "refs/stash", "packed-refs"].map((p) => join(common, p));
  const stamp = () => (existsSync(join(common, "reftable")) ? null : [log, ref, packed].map((f) => fileStamp(f!)).join("|"));
  const before = stamp();
  const last = lastListing.get(log!);
  if (before && last?.stamp === before) return last.entries.map((e) => ({ ...e }));
  const out = await stashLog(git, "%H%x00%gs");
  if (out.code !== 0) return [];
  const entries = out.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, l.indexOf("\0")), subject: l.slice(l.indexOf("\0") + 1) }));
  if (before && before === stamp()) lastListing.set(log!, { stamp: before, entries: entries.map((e) => ({ ...e })) }); // unchanged while git read it
  return entries;
}

/**
 * `git stash list` itself, never remembered: the loop's completion reads the list once, as the user would see it
 * (two processes once a run; a kill test aims at its arguments, which no other step passes).
 */
export async function stashListNow(git: Git): Promise<StashEntry[]> {
  const out = await git.run(["stash", "list", "--format=%H %gs"], { allowFailure: true });
  if (out.code !== 0) return [];
  return out.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, l.indexOf(" ")), subject: l.slice(l.indexOf(" ") + 1) }));
}

export async function stashShas(git: Git): Promise<string[]> {
  return (await stashEntries(git)).map((e) => e.sha);
}

/** Adds the stash-shaped commit `sha` to `git stash list` with `message` as its reflog subject. */
export function storeStash(git: Git, sha: string, message: string): Promise<void> {
  return withStashLock(git, async () => {
    await retryingRefLock(git, ["stash", "store", "-q", "-m", message, sha]);
  });
}

/** Drops exactly the entry whose commit is `sha`; false when there is none. */
export function dropStash(git: Git, sha: string): Promise<boolean> {
  return withStashLock(git, async () => {
    for (let tries = 0; tries < 20; tries++) {
      const i = (await stashShas(git)).indexOf(sha);
      if (i < 0) return false;
      const out = await retryingRefLock(git, ["stash", "drop", `stash@{${i}}`]);
      const dropped = /\(([0-9a-f]{40,64})\)/.exec(out)?.[1];
      if (!dropped || dropped === sha) return true;
      // Someone else's entry went: put it back as it was, then look again.
      const subject = await git.out(["log", "-1", "--format=%s", dropped]);
      await retryingRefLock(git, ["stash", "store", "-q", "-m", subject, dropped]);
    }
    throw new Error(`could not drop the stash ${sha}: the stash list keeps changing`);
  });
}
