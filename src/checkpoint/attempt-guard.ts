/**
 * What every checkpoint at a commit does around one attempt (branch.ts, and a `--parallel` lane's): note the
 * refs and ignored files as the attempt begins, measure what it changed, put the tree back to the commit.
 * The checkpoint is a clean tree at `sha()`, so progress is "HEAD moved or the tree is dirty".
 */
import { basename } from "node:path";
import { realOrSame as real } from "../proc/real-path.ts";
import { committedChanges, composeChanges, treeStatus } from "./changed-files.ts";
import type { Git } from "./git.ts";
import { holdTree, writeTreeDiff } from "./hold.ts";
import { readRefs, recoverIgnored, refsViolation, restoreRefs, type RefsAt } from "./refs.ts";
import { deletedIgnored, ignoredPaths, restoreSnapshot } from "./snapshot.ts";
import type { Checkpoint } from "./strategy.ts";

/**
 * How long the ignored paths the last measure's `git status` listed stand for the next attempt's start (ensure),
 * in ms: the loop's own keep or revert in between changes no ignored file, but a pause between attempts lets the
 * user make some, which must be listed again.
 */
export const IGNORED_FRESH_MS = 2000;

/**
 * `sha`: the checkpoint commit now; `keep`: paths git is told to assume unchanged, left as they are by a revert;
 * `now`: the clock IGNORED_FRESH_MS is read on (a test's own).
 */
export function attemptGuard(
  git: Git,
  sha: () => string,
  keep: () => string[],
  now: () => number = () => performance.now(),
): Pick<Checkpoint, "ensure" | "revert" | "changes" | "hold" | "writeDiff"> {
  let refs: RefsAt | null = null;
  let ignored: string[] = []; // ignored when the attempt began: never deleted by its revert
  // The ignored paths the last measure listed, when they are what a listing at the next start would give.
  let measured: { paths: string[]; at: number } | null = null;
  let untouched = false; // the last attempt left HEAD, refs and tree exactly at the checkpoint
  let base = ""; // the checkpoint the attempt started from
  const tree = () => git.treeOf(sha());
  return {
    async ensure() {
      untouched = false;
      base = sha();
      // The refs from git's files (ref-files.ts); the ignored paths from the last measure's `git status` when nothing
      // but the loop's keep or revert came since (a git process an attempt, docs/performance.md), else listed now.
      const listed = measured && now() - measured.at <= IGNORED_FRESH_MS ? measured.paths : null;
      measured = null;
      const [at, present] = await Promise.all([readRefs(git), listed ?? ignoredPaths(git)]);
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
      const [violation, { head, dirty, files: inTree, nested, ignored: ignoredNow }, dirs] = await Promise.all([
        refs ? refsViolation(git, refs, at).then((r) => r.violation) : null,
        treeStatus(git),
        git.locate(),
      ]);
      const listedAt = now();
      untouched = !violation && !dirty && head === at;
      const gone = deletedIgnored(git.ctx.cwd, ignored);
      ignored = ignored.filter((p) => !gone.includes(p)); // told once
      // A HEAD that names a branch with no commit ("(initial)": a lane's branch another agent deleted) has no history
      // to measure; the refs check already calls it a violation.
      const born = /^[0-9a-f]{40,64}$/.test(head);
      const files = untouched ? [] : composeChanges(born ? await committedChanges(git, at, head) : new Map(), inTree);
      const commits = violation || !born ? [] : await git.commitsBetween(at, head);
      // Listed under the ignore rules the attempt left: they stand for the next start only when a revert cannot
      // change those rules back (no `.gitignore` changed: an agent that ignores its own new files must still have
      // them deleted by its revert), and when the status's paths (from the top) are the listing's (from here).
      const rulesKept = !violation && born && !files.some((f) => basename(f.path) === ".gitignore");
      measured = rulesKept && dirs && real(dirs.workTree) === real(git.ctx.cwd) ? { paths: ignoredNow, at: listedAt } : null;
      return { progress: head !== at || dirty, commits, violation, deletedIgnored: gone, files, nested };
    },

    hold: async (base) => {
      measured = null; // a reviewer runs in the tree next: what it leaves is listed again at the next start
      return holdTree(git, base ?? (await tree()), keep(), ignored);
    },

    // Once kept, the new checkpoint commit holds the tree the attempt left: a diff of two commits, one git process —
    // not the snapshot of the whole tree (a copy of the index, `ls-files`, `add -A`, `write-tree`) a revert still needs.
    writeDiff: async (file) => {
      const from = base || sha();
      return writeTreeDiff(git, from, sha() !== from ? sha() : await git.snapshot(), file);
    },
  };
}
