/**
 * Stash checkpoints (`--checkpoint stash`): no branch and no commits. Before each story the whole
 * tree is stashed (`-u`) and at once re-applied, so the tree is unchanged and the stash holds the
 * checkpoint. Stashes are named by commit hash, never by `stash@{n}`, whose numbers shift.
 */
import { UserError } from "../errors.ts";
import type { Git } from "./git.ts";
import { requireCommit, type Checkpoint, type CheckpointInfo } from "./strategy.ts";

export function stashCheckpoint(git: Git, name: string): Checkpoint {
  let info: CheckpointInfo;
  // The story's stash, and the snapshot of the tree it holds (what "no progress" compares with).
  let current: { story: string; stash: string | null; tree: string } | null = null;
  const prefix = `ralph:${name}:`;

  const stashIndex = async (sha: string) => {
    const list = (await git.out(["stash", "list", "--format=%H"])).split("\n");
    const i = list.indexOf(sha);
    return i < 0 ? null : `stash@{${i}}`;
  };

  return {
    async init() {
      const head = await requireCommit(git);
      info = { branch: null, originalBranch: await git.branch(), originalCommit: head, sha: head };
      return info;
    },

    async ensure(storyId) {
      if (current?.story === storyId) return;
      info.sha = (await git.head())!;
      // Decide from the tree, not from refs/stash: the same tree stashed twice within one second
      // gives the same commit hash (and no new reflog entry), which would look like no stash at all.
      let stash: string | null = null;
      if (await git.isDirty()) {
        await git.run(["stash", "push", "-q", "-u", "-m", `${prefix}${storyId}`]);
        stash = await git.resolve("refs/stash");
      }
      if (stash) {
        const applied = await git.run(["stash", "apply", "-q", "--index", stash], { allowFailure: true });
        if (applied.code !== 0) await git.run(["stash", "apply", "-q", stash]);
      }
      current = { story: storyId, stash, tree: await git.snapshot() };
    },

    async revert() {
      await git.run(["reset", "-q", "--hard", info.sha]);
      await git.run(["clean", "-fdq"]);
      if (current?.stash) await git.run(["stash", "apply", "-q", "--index", current.stash]);
    },

    async changes() {
      // The tree is not clean at a stash checkpoint: compare whole-tree snapshots instead.
      const head = (await git.head())!; // dirtiness is the snapshot's business here: no status needed
      const progress = head !== info.sha || (await git.snapshot()) !== current?.tree;
      return { progress, commits: await git.commitsBetween(info.sha, head) };
    },

    async accept(_message, since) {
      const commits = since.commits;
      // The work stays in the tree; the next story's stash will hold it, so this one can go.
      if (current?.stash) {
        const ref = await stashIndex(current.stash);
        if (ref) await git.run(["stash", "drop", "-q", ref]);
      }
      current = null;
      info.sha = (await git.head())!;
      return commits;
    },

    async finish(choice) {
      const mine = (await git.out(["stash", "list", "--format=%H %gs"]))
        .split("\n")
        .filter((l) => l.includes(`: ${prefix}`))
        .map((l) => l.split(" ")[0]!);
      if (choice === "keep")
        return mine.length ? `Kept ${mine.length} checkpoint stash(es) named ${prefix}… (git stash list).` : "No checkpoint stash left.";
      for (const sha of mine) {
        const ref = await stashIndex(sha);
        if (ref) await git.run(["stash", "drop", "-q", ref]);
      }
      return `The loop's work is in the working tree; dropped ${mine.length} checkpoint stash(es).`;
    },

    info: () => {
      if (!info) throw new UserError("stash checkpoint used before init");
      return info;
    },
  };
}
