/**
 * A run that must not change the tree (the auditor) whose runner was killed before it could put back what that
 * run changed (docs/how-it-works.md "The audit"): the next start puts the tree, the index and the branch back
 * to what they were before the run, from what the hold recorded in the state (`held`). What the tree holds
 * then is first kept as a stash entry — the user may have edited since the kill — so nothing is lost.
 */
import { changedFiles } from "./changed-files.ts";
import type { Git } from "./git.ts";
import type { HeldAt } from "./hold.ts";
import { assumeUnchanged, ignoredPaths, restoreSnapshot, stashCommit, takeSnapshot } from "./snapshot.ts";
import { storeStash } from "./stash-ref.ts";

const MAX_NAMED = 10;

/** Puts the tree back to `held`; what it did for the user, or null when the run had changed nothing. */
export async function putBackHeld(git: Git, held: HeldAt, who: string): Promise<string | null> {
  const branch = (await git.run(["symbolic-ref", "-q", "HEAD"], { allowFailure: true })).stdout.trim() || null;
  const head = await git.head();
  const where = held.branch?.replace(/^refs\/heads\//, "") ?? `the commit ${held.head.slice(0, 12)}`;
  // HEAD on another branch: the user moved on since the kill; nothing is ours to move.
  if (branch !== held.branch || !head)
    return `The previous loop's runner was killed while its ${who} ran, and HEAD is no longer on ${where}: nothing it changed was put back.`;
  const now = await takeSnapshot(git, head);
  const moved = head !== held.head;
  const files = now.full === held.full ? [] : await changedFiles(git, held.full, now.full);
  if (!moved && !files.length && now.index === held.index) return null;
  const message = `wt-loop: the tree as the killed ${who} left it`;
  await storeStash(git, await stashCommit(git, now, where, message), message);
  // Compare-and-swap: the branch moves back only from where it is now; its commits stay in its reflog and in the stash entry.
  if (moved)
    await git.runRetryingLocks(branch ? ["update-ref", "-m", message, branch, held.head, head] : ["update-ref", "--no-deref", "HEAD", held.head, head]);
  await restoreSnapshot(git, held, await assumeUnchanged(git), await ignoredPaths(git));
  const named = files.slice(0, MAX_NAMED).map((f) => `${f.path} (${f.status})`);
  if (files.length > MAX_NAMED) named.push(`${files.length - MAX_NAMED} more`);
  if (moved) named.push(`${where} moved back from ${head.slice(0, 12)} to ${held.head.slice(0, 12)}`);
  if (!named.length) named.push("the index");
  return (
    `The previous loop's runner was killed while its ${who} ran: put back what the ${who} had changed (${named.join(", ")}). ` +
    `The tree as it was is kept in \`git stash list\` as "${message}".`
  );
}
