/**
 * Stash checkpoints (`--checkpoint stash`): no branch and no commits on any branch. Before each
 * story the tree is snapshotted without being touched (see snapshot.ts) and the snapshot is stored
 * as a stash entry `ralph:{name}:{story}`, so `git stash list` shows it and `git stash apply <sha>`
 * brings it back by hand. Each entry is named by its object id only (stash-ref.ts); a revert
 * restores the snapshot (never `stash pop`), a completed story drops exactly its entry.
 *
 * An entry is put in `info().stashes` (and the caller records it) before it is stored, and a new run
 * takes over the entries a killed runner of this loop recorded (`earlier`): a kill at any point
 * leaves no `ralph:` entry that no run knows of. An accepted story drops them all: the tree holds
 * everything they held that the loop keeps, as after any accepted story.
 */
import { changedFiles } from "./changed-files.ts";
import type { Git } from "./git.ts";
import { holdTree, writeTreeDiff } from "./hold.ts";
import { readRefs, recoverIgnored, refsViolation, restoreRefs, sameRefs, type RefsAt } from "./refs.ts";
import {
  assumeUnchanged,
  deletedIgnored,
  ignoredPaths,
  restoreIndex,
  restoreSnapshot,
  stashCommit,
  takeSnapshot,
  type IndexCommit,
  type Snapshot,
} from "./snapshot.ts";
import { dropStash, stashListNow, stashShas, storeStash } from "./stash-ref.ts";
import { userWorkKeeper } from "./user-work.ts";
import { requireCommit, type Checkpoint, type CheckpointInfo } from "./strategy.ts";

export function stashCheckpoint(git: Git, name: string, earlier: string[] = []): Checkpoint {
  let info: CheckpointInfo | undefined;
  let keep: string[] = [];
  let refs: RefsAt;
  let ignored: string[] = [];
  // The story's snapshot, and its stash entry (null when the tree was clean: HEAD holds it all).
  let current: { story: string; snap: Snapshot; stash: string | null } | null = null;
  let previous: Snapshot | undefined; // the last story's, for the next (takeSnapshot's `last`)
  // The attempt's diff as changes() last measured it, from the story's snapshot (else HEAD held it all) to the tree
  // the attempt left: nothing the loop runs after changes() leaves the tree otherwise (the verify command is measured
  // again, the reviewer's changes are put back), and it holds after accept() forgot the story's snapshot.
  // HEAD as changes() read it too: accept() keeps it (a git process less a story).
  let left: { from: string; to: string; head: string } | null = null;
  // Whether changes() found every ref as the attempt began (HEAD at the checkpoint): a revert then has none to put back.
  // What runs between changes() and a revert leaves refs as changes() saw them (the verify command is measured again,
  // the reviewer's moves are put back), and the agent's processes are gone.
  let refsUntouched = false;
  const made: { index?: IndexCommit } = {}; // the last entry's index commit, for the next (snapshot.ts stashCommit)
  const prefix = `ralph:${name}:`;
  const need = () => {
    if (!info) throw new Error("stash checkpoint used before init");
    return info;
  };

  return {
    async init() {
      const head = await requireCommit(git);
      keep = await assumeUnchanged(git);
      const snap = (previous = await takeSnapshot(git, head));
      const listed = new Set(await stashShas(git));
      const stashes = [...new Set(earlier)].filter((s) => listed.has(s)); // the rest was never stored, or dropped already
      info = { branch: null, originalBranch: await git.branch(), originalCommit: head, sha: head, indexTree: snap.index, stashes };
      return info;
    },

    async ensure(storyId, recordIntent) {
      const i = need();
      // Two reads of their own, at once: each is a git process, and an iteration's cost over plain git is mostly these.
      const [at, present] = await Promise.all([readRefs(git), ignoredPaths(git)]);
      refs = at; // every attempt starts here; changes() compares with it
      ignored = [...new Set([...ignored, ...present])]; // ignored at any attempt's start: never deleted by a revert, even when an agent removes the rule
      left = null;
      refsUntouched = false;
      if (current?.story === storyId) return;
      i.sha = refs.head;
      const headTree = await git.treeOf(i.sha);
      // The last snapshot's index tree is taken again only when it is HEAD's: one that nothing reaches (its stash entry
      // dropped) may be pruned by a `git gc --prune=now` meanwhile, a tree reachable from HEAD never is.
      const snap = await takeSnapshot(git, i.sha, previous?.index === headTree ? previous : undefined); // only objects are written: a stop may cut it short
      previous = snap;
      let stash: string | null = null;
      if (snap.full !== headTree || snap.index !== headTree) {
        const q = git.uninterruptible();
        const label = refs.symbolic ? refs.symbolic.replace(/^refs\/heads\//, "") : "(no branch)";
        stash = await stashCommit(q, snap, label, `${prefix}${storyId}`, made);
        // The same snapshot in the same second is the same commit: a killed run may have stored it already.
        const stored = i.stashes.includes(stash) && (await stashShas(q)).includes(stash);
        if (!stored) {
          if (!i.stashes.includes(stash)) i.stashes.push(stash);
          await recordIntent?.();
          await storeStash(q, stash, `On ${label}: ${prefix}${storyId}`);
        }
      }
      current = { story: storyId, snap, stash };
    },

    async revert() {
      if (!current) return [];
      const q = git.uninterruptible();
      const { notes, stray } = refsUntouched ? { notes: [], stray: [] } : await restoreRefs(q, refs, current.snap.head);
      // The tree changes() found is the story's snapshot: no file to write or delete (a step that rewrote every
      // changed file and listed every untracked one). What ran after changes() left the tree as it found it.
      if (left?.to === current.snap.full) await restoreIndex(q, current.snap, keep);
      else await restoreSnapshot(q, current.snap, keep, ignored);
      const back = await recoverIgnored(q, stray);
      return back.length ? [...notes, `ignored files git had deleted were brought back: ${back.join(", ")}`] : notes;
    },

    async changes() {
      const i = need();
      // The refs and the tree are read at once: neither read writes anything the other reads. The tree is not clean
      // at a stash checkpoint: whole-tree snapshots are compared instead.
      const [{ violation, head, now: refsNow }, now] = await Promise.all([refsViolation(git, refs, i.sha), git.snapshot()]);
      refsUntouched = !violation && head === current?.snap.head && sameRefs(refs, refsNow);
      left = { from: current?.snap.full ?? i.sha, to: now, head };
      const progress = head !== i.sha || now !== current?.snap.full;
      const files = current ? await changedFiles(git, current.snap.full, now) : [];
      const gone = deletedIgnored(git.ctx.cwd, ignored);
      ignored = ignored.filter((p) => !gone.includes(p)); // told once
      return { progress, commits: violation ? [] : await git.commitsBetween(i.sha, head), violation, deletedIgnored: gone, files };
    },

    async accept(_message, since) {
      const i = need();
      // The work stays in the tree; the next story's stash will hold it, so this one can go (and a
      // killed run's, taken over: they hold the tree before attempts that this one now supersedes).
      for (const sha of [...i.stashes]) {
        await dropStash(git.uninterruptible(), sha);
        i.stashes = i.stashes.filter((s) => s !== sha);
      }
      current = null;
      i.sha = left?.head || (await git.head())!;
      return since.commits;
    },

    hold: (base) => holdTree(git, base ?? current?.snap.full ?? need().sha, keep, ignored), // the story's snapshot, else HEAD held it all

    // What changes() measured: a second snapshot of the whole tree (a copy of the index, `ls-files`, `add -A`,
    // `write-tree`) would find the same tree.
    writeDiff: async (file) =>
      left ? writeTreeDiff(git, left.from, left.to, file) : writeTreeDiff(git, current?.snap.full ?? need().sha, await git.snapshot(), file),

    async finish(choice) {
      const i = need();
      const q = git.uninterruptible(); // after a stop too: the completion runs whole or not at all
      const listed = await stashListNow(q);
      const mine = i.stashes.filter((s) => listed.some((e) => e.sha === s));
      // Counted from the list as it is, so the message never says "none left" while some are.
      const older = listed.filter((e) => !i.stashes.includes(e.sha) && e.subject.includes(`: ${prefix}`)).length;
      const others = older ? ` ${older} checkpoint stash(es) of earlier loops stay (${prefix}… in git stash list): not this loop's, so not dropped.` : "";
      if (choice === "keep")
        return mine.length
          ? `Kept ${mine.length} checkpoint stash(es) named ${prefix}… (git stash list); \`git stash apply ${mine.at(-1)}\` brings the last one back.${others}`
          : older
            ? `No checkpoint stash of this loop left.${others}`
            : "No checkpoint stash left.";
      for (const sha of mine) {
        await dropStash(q, sha);
        i.stashes = i.stashes.filter((s) => s !== sha);
      }
      return `The loop's work is in the working tree; dropped ${mine.length} checkpoint stash(es) this loop made.${others}`;
    },

    rescue() {
      if (current?.stash)
        return (
          `Your work as it was before story ${current.story} is in the stash entry ${current.stash} ` +
          `(\`git stash apply ${current.stash}\` brings it back; the working tree holds the last attempt's state).`
        );
      if (current)
        return `Before story ${current.story} your tree was clean at ${current.snap.head.slice(0, 12)}; the working tree holds the last attempt's state.`;
      return "The working tree was not changed by wt-loop: your work is in it.";
    },

    info: need,
    userWork: userWorkKeeper(git),
  };
}
