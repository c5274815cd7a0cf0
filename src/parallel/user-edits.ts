/**
 * What the user changed in the main worktree while lanes ran (docs/parallel.md "Editing while lanes run"). The
 * sequential loop folds such edits into its next checkpoint; the merge queue does the same before it replays a
 * lane: the worktree's state (tracked changes and untracked, not ignored files) becomes a commit of its own on the
 * loop branch. The tree already is that commit's, so nothing in the tree moves, and the integration (and its undo,
 * which goes back to this commit) then starts from a clean worktree.
 *
 * Crash-safe: the commit is made from a private index snapshot (takeSnapshot: the real index and tree are not
 * written), then the branch moves by compare-and-swap. A kill before leaves nothing changed; a kill after leaves
 * the branch at the commit and only the real index behind, which the next call brings up to date.
 */
import type { Git } from "../checkpoint/git.ts";
import { assumeUnchanged, setIndex, takeSnapshot } from "../checkpoint/snapshot.ts";

export const USER_EDITS_SUBJECT = "wt-loop: your changes in the worktree while lanes ran";

/**
 * `head` is the loop branch's head, checked out in the main worktree (`q`). Returns the branch's head after.
 * `dirty`: whether the worktree has changes, when the caller just asked git (else it is asked here).
 */
export async function foldUserEdits(q: Git, ref: string, head: string, story: string, dirty?: boolean): Promise<string> {
  if (!(dirty ?? (await q.isDirty()))) return head;
  const tree = (await takeSnapshot(q, head)).full;
  let now = head;
  if (tree !== (await q.treeOf(head))) {
    const c = await q.commitTree(tree, [head], `${USER_EDITS_SUBJECT}\n\nFolded in before integrating story ${story}.`);
    await q.runRetryingLocks(["update-ref", "-m", "wt-loop: your changes in the worktree while lanes ran", ref, c, head]);
    now = c;
  }
  // Only the index follows (the tree already is `now`), with the user's --assume-unchanged marks kept.
  await setIndex(q, now, await assumeUnchanged(q));
  await q.refreshIndex();
  return now;
}
