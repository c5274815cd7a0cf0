/**
 * What the user had uncommitted before the loop began, kept reachable until they remove it. A
 * checkpoint only protects the tree from a *failed* attempt: an accepted one that deleted or changed
 * the user's files would otherwise leave their versions nowhere but in unreachable objects (stash
 * mode, after its entries are dropped) or deep in the loop branch's history (branch mode).
 *
 * One ref per loop, never per iteration: `refs/wt-loop/<worktree>-<hash of its path>/before-<start>`.
 * Refs are shared by every worktree of a repository; the path's hash keeps two worktrees of the same
 * name apart, and the loop only ever touches the exact ref its state names (compare-and-swap). The
 * commit's tree is the whole tree as it was (untracked files included), its parent the commit it
 * stood on, so `git restore --source=<ref> -- <path>` brings back any one file.
 *
 * The ref is recorded in the state before it is written, and a run that takes over a killed
 * runner's loop writes it again from the recorded commit: a kill at any point leaves no snapshot
 * nobody knows of. At the loop's end it is deleted when the tree still holds every file it kept as
 * it was, and otherwise kept, with the files named and the command that brings them back.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { UserWork } from "../state/schema.ts";
import type { Git } from "./git.ts";
import { takeSnapshot } from "./snapshot.ts";

export { lostMessage } from "./lost-message.ts";

/** The message of the ref's write (also how a test finds that one git call). */
const REF_MESSAGE = "wt-loop: your work before the loop";

const nul = (out: string) => out.split("\0").filter((p) => p !== "");

export interface UserWorkKeeper {
  /**
   * Before anything else of a run: the snapshot the loop took over (`earlier`, written again if its
   * ref is missing), or a new one when the tree holds uncommitted work (null when it holds none).
   * `record` is awaited after the snapshot exists as objects and before its ref is written.
   */
  keep(earlier: UserWork | null, started: string, record: (w: UserWork) => Promise<void>): Promise<UserWork | null>;
  /** The kept files that the tree no longer holds as they were (deleted or changed). */
  lost(w: UserWork): Promise<string[]>;
  /** Deletes the ref, unless it was moved meanwhile (then it is not this loop's to delete). */
  release(w: UserWork): Promise<void>;
}

export function userWorkKeeper(git: Git): UserWorkKeeper {
  return {
    async keep(earlier, started, record) {
      if (earlier) return (await pin(git, earlier)) ? earlier : null;
      const head = await git.head();
      if (!head) return null; // no commit yet: the checkpoint refuses that
      const snap = await takeSnapshot(git, head);
      const headTree = await git.treeOf(head);
      // Added or changed files only: a file the user deleted has nothing to bring back.
      const diff = await git.run(["diff-tree", "-r", "--no-renames", "--name-only", "-z", "--diff-filter=AMT", headTree, snap.full]);
      const paths = nul(diff.stdout);
      if (!paths.length) return null;
      const commit = await git.commitTree(snap.full, [head], `${REF_MESSAGE}: ${paths.length} file(s) you had changed`);
      const w: UserWork = { ref: refName(git.ctx.cwd, started), commit, paths, lost: null };
      await record(w);
      await pin(git, w);
      return w;
    },

    async lost(w) {
      // Part of the loop's ending, which runs after a stop: the stop must not cut it.
      const q = git.uninterruptible();
      const now = await q.snapshot();
      const diff = await q.run(["diff-tree", "-r", "--no-renames", "--name-only", "-z", `${w.commit}^{tree}`, now]);
      const kept = new Set(w.paths);
      return nul(diff.stdout).filter((p) => kept.has(p));
    },

    async release(w) {
      // Through --stdin: one git call whose arguments no other step of the loop's end passes.
      await git.uninterruptible().run(["update-ref", "--stdin"], { input: `delete ${w.ref} ${w.commit}\n`, allowFailure: true });
    },
  };
}

/** Writes the ref at the recorded commit when it is missing; false when the commit is gone (gc). */
async function pin(git: Git, w: UserWork): Promise<boolean> {
  const at = await git.resolve(w.ref);
  if (at === w.commit) return true;
  if (at) throw new Error(`${w.ref} exists at ${at}, not at the snapshot ${w.commit} this loop recorded; it was left as it is`);
  if ((await git.run(["cat-file", "-e", `${w.commit}^{commit}`], { allowFailure: true })).code !== 0) return false;
  await git.uninterruptible().runRetryingLocks(["update-ref", "-m", REF_MESSAGE, w.ref, w.commit, ""]); // "": it must not exist
  return true;
}

function refName(worktree: string, started: string): string {
  return `refs/wt-loop/${worktreeKey(worktree)}/before-${started.replace(/\D/g, "")}`;
}

/** `<worktree>-<hash of its path>`: what names a loop's refs (and its lanes) apart from another worktree's of the same name. */
export function worktreeKey(worktree: string): string {
  const name =
    basename(worktree)
      .replace(/[^A-Za-z0-9_-]+/g, "-")
      .replace(/^-+|-+$/g, "") || "worktree";
  const hash = createHash("sha256").update(worktree).digest("hex").slice(0, 8);
  return `${name}-${hash}`;
}
