/**
 * Holding the tree as it is, for a run that must not change it (a reviewer): what the tree, the
 * index and the refs are now is recorded without touching anything, and put back afterwards if the
 * run changed any of it — the same snapshot and ref machinery a revert uses, aimed at "now" instead
 * of the checkpoint.
 */
import { stat } from "node:fs/promises";
import { changedFiles } from "./changed-files.ts";
import type { Git } from "./git.ts";
import { readRefs, restoreRefs, sameRefs } from "./refs.ts";
import { restoreSnapshot, takeSnapshot } from "./snapshot.ts";

/** What a hold recorded, enough to put the tree back from another process (a start after the runner was killed: held-after-kill.ts). */
export interface HeldAt {
  head: string;
  /** `refs/heads/…` HEAD was on; null when detached. */
  branch: string | null;
  /** The snapshot's trees: the worktree (untracked files included), and the index. */
  full: string;
  index: string;
}

export interface Held {
  at: HeldAt;
  /**
   * Writes `git diff` from `base` (the checkpoint's tree) to the held tree into `file`, untracked
   * files included (they are in the snapshot); its size in bytes.
   */
  writeDiff(file: string): Promise<number>;
  /**
   * Puts back what changed since the hold; returns what was put back (paths, and notes about refs),
   * empty when nothing had changed.
   */
  putBack(): Promise<string[]>;
}

/**
 * `git diff` from tree-ish `from` to tree-ish `to` into `file` (git's own text: no external diff program, no textconv,
 * no renames, so its files are those changedFiles lists); its size in bytes. Into a file, not memory: an attempt that
 * rewrote a lockfile makes a diff of megabytes.
 */
export async function writeTreeDiff(git: Git, from: string, to: string, file: string): Promise<number> {
  await git.run(["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", `--output=${file}`, from, to]);
  return (await stat(file)).size;
}

/**
 * `base`: the tree the diff starts from; `keep`: the paths marked --assume-unchanged; `protect`:
 * ignored paths a put-back never deletes.
 */
export async function holdTree(git: Git, base: string, keep: string[], protect: string[]): Promise<Held> {
  const refs = await readRefs(git);
  const snap = await takeSnapshot(git, refs.head);
  return {
    at: { head: refs.head, branch: refs.symbolic, full: snap.full, index: snap.index },
    writeDiff: (file) => writeTreeDiff(git, base, snap.full, file),
    async putBack() {
      // Uninterruptible from the first read: after a stop it must still run whole, or the reviewer's changes stay.
      const q = git.uninterruptible();
      const [nowRefs, now] = await Promise.all([readRefs(q), takeSnapshot(q, refs.head)]);
      const moved = !sameRefs(refs, nowRefs);
      const files = now.full === snap.full ? [] : (await changedFiles(q, snap.full, now.full)).map((f) => `${f.path} (${f.status})`);
      if (!moved && !files.length && now.index === snap.index) return [];
      const { notes } = moved ? await restoreRefs(q, refs, refs.head) : { notes: [] };
      await restoreSnapshot(q, snap, keep, protect);
      return [
        ...files,
        ...(moved ? [`refs (HEAD or branches or stash entries)${notes.length ? `: ${notes.join("; ")}` : ""}`] : []),
        ...(files.length || moved ? [] : ["the index"]),
      ];
    },
  };
}
