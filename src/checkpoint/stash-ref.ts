/**
 * `refs/stash` is shared by every worktree of a repository: another loop (or the user) may push or
 * drop at any moment. wt-loop's own stores and drops are serialized by a lock file in the common
 * git dir, git's ref-lock contention is retried, and an entry is only ever named by its object id:
 * its `stash@{N}` is looked up under the lock right before the drop, and a drop that removed another
 * entry (a user's push slipped in between) is undone at once.
 */
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
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

export async function stashShas(git: Git): Promise<string[]> {
  const out = await git.run(["stash", "list", "--format=%H"], { allowFailure: true });
  return out.code === 0 ? out.stdout.split("\n").filter(Boolean) : [];
}

/** Every entry of `git stash list`, newest first: its commit and its reflog subject (`On main: …`). */
export async function stashEntries(git: Git): Promise<{ sha: string; subject: string }[]> {
  const out = await git.run(["stash", "list", "--format=%H %gs"], { allowFailure: true });
  if (out.code !== 0) return [];
  return out.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, l.indexOf(" ")), subject: l.slice(l.indexOf(" ") + 1) }));
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
