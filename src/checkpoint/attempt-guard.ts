/**
 * What every checkpoint at a commit does around one attempt (branch.ts, and a `--parallel` lane's): note the
 * refs and ignored files as the attempt begins, measure what it changed, put the tree back to the commit.
 * The checkpoint is a clean tree at `sha()`, so progress is "HEAD moved or the tree is dirty".
 */
import { committedChanges, composeChanges, treeStatus } from "./changed-files.ts";
import type { Git } from "./git.ts";
import { holdTree, writeTreeDiff } from "./hold.ts";
import { readRefs, recoverIgnored, refsViolation, restoreRefs, type RefsAt } from "./refs.ts";
import { deletedIgnored, ignoredPaths, restoreSnapshot } from "./snapshot.ts";
import type { Checkpoint } from "./strategy.ts";

/** `sha`: the checkpoint commit now; `keep`: paths git is told to assume unchanged, left as they are by a revert. */
export function attemptGuard(git: Git, sha: () => string, keep: () => string[]): Pick<Checkpoint, "ensure" | "revert" | "changes" | "hold" | "writeDiff"> {
  let refs: RefsAt | null = null;
  let ignored: string[] = []; // ignored when the attempt began: never deleted by its revert
  let untouched = false; // the last attempt left HEAD, refs and tree exactly at the checkpoint
  let base = ""; // the checkpoint the attempt started from
  const tree = () => git.treeOf(sha());
  return {
    async ensure() {
      untouched = false;
      base = sha();
      // Two reads of their own, at once: each is a git process, and an iteration's cost over plain git is mostly these.
      const [at, present] = await Promise.all([readRefs(git), ignoredPaths(git)]);
      refs = at; // every attempt starts here; changes() compares with it
      ignored = [...new Set([...ignored, ...present])]; // ignored at any attempt's start: never deleted by a revert, even when an agent removes the rule
    },

    async revert() {
      if (untouched) return []; // changes() just saw a clean tree at the checkpoint: nothing to undo
      const q = git.uninterruptible();
      const { notes, stray } = refs ? await restoreRefs(q, refs, sha()) : { notes: [], stray: [] };
      const t = await tree();
      await restoreSnapshot(q, { full: t, index: t }, keep(), ignored);
      const back = await recoverIgnored(q, stray);
      return back.length ? [...notes, `ignored files git had deleted were brought back: ${back.join(", ")}`] : notes;
    },

    async changes() {
      // The changed paths are the agent's commits' and then the tree's (the refs and the status read at once).
      const at = sha();
      const [violation, { head, dirty, files: inTree, nested }] = await Promise.all([
        refs ? refsViolation(git, refs, at).then((r) => r.violation) : null,
        treeStatus(git),
      ]);
      untouched = !violation && !dirty && head === at;
      const gone = deletedIgnored(git.ctx.cwd, ignored);
      ignored = ignored.filter((p) => !gone.includes(p)); // told once
      // A HEAD that names a branch with no commit ("(initial)": a lane's branch another agent deleted) has no history
      // to measure; the refs check already calls it a violation.
      const born = /^[0-9a-f]{40,64}$/.test(head);
      const files = untouched ? [] : composeChanges(born ? await committedChanges(git, at, head) : new Map(), inTree);
      const commits = violation || !born ? [] : await git.commitsBetween(at, head);
      return { progress: head !== at || dirty, commits, violation, deletedIgnored: gone, files, nested };
    },

    hold: async (base) => holdTree(git, base ?? (await tree()), keep(), ignored),

    // Once kept, the new checkpoint commit holds the tree the attempt left: a diff of two commits, one git process —
    // not the snapshot of the whole tree (a copy of the index, `ls-files`, `add -A`, `write-tree`) a revert still needs.
    writeDiff: async (file) => {
      const from = base || sha();
      return writeTreeDiff(git, from, sha() !== from ? sha() : await git.snapshot(), file);
    },
  };
}
