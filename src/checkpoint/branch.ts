/**
 * Branch checkpoints (the default): the loop works on `ralph/{name}`, whose latest commit is the
 * checkpoint. The user's uncommitted work is committed first as `initial state` — built from a
 * private index, so the working tree is never touched — and the branch is created and checked out
 * by moving refs only. Cleanup moves HEAD back the same way: the tree is not rewritten, and the
 * index the user had is staged again.
 */
import { UserError } from "../errors.ts";
import { attemptGuard } from "./attempt-guard.ts";
import type { Git } from "./git.ts";
import { assumeUnchanged, setIndex, takeSnapshot } from "./snapshot.ts";
import { userWorkKeeper } from "./user-work.ts";
import { loopBranchName, ORIGIN_KEY, requireCommit, type Checkpoint, type CheckpointInfo } from "./strategy.ts";

export function branchCheckpoint(git: Git, name: string): Checkpoint {
  const branch = loopBranchName(name);
  const ref = `refs/heads/${branch}`;
  let info: CheckpointInfo;
  let keep: string[] = [];
  const tree = (sha: string) => git.treeOf(sha);

  return {
    async init() {
      const head = await requireCommit(git);
      const current = await git.branch();
      keep = await assumeUnchanged(git);
      const snap = await takeSnapshot(git, head);
      const q = git.uninterruptible();
      if (current === branch) {
        // Restart: continue on the branch, keep the original it recorded when it was created.
        const origin = await readOrigin(git, branch);
        info = {
          branch,
          originalBranch: origin.branch,
          originalCommit: origin.commit ?? (origin.branch && (await git.resolve(`refs/heads/${origin.branch}`))) ?? head,
          sha: head,
          indexTree: origin.index ?? snap.index,
          stashes: [],
        };
        if (snap.full !== (await tree(head)) || snap.index !== snap.full) {
          info.sha = await q.commitTree(snap.full, [head], "initial state");
          await q.runRetryingLocks(["update-ref", "-m", "wt-loop: initial state", ref, info.sha, head]);
          await setIndex(q, snap.full, keep);
        }
        return info;
      }
      // The origin is recorded first: a branch that exists always says where it came from.
      await q.runRetryingLocks(["config", ORIGIN_KEY(branch), current ? `branch:${current}` : `commit:${head}`]);
      await q.runRetryingLocks(["config", `${ORIGIN_KEY(branch)}-commit`, head]);
      await q.runRetryingLocks(["config", `${ORIGIN_KEY(branch)}-index`, snap.index]);
      const sha = await q.commitTree(snap.full, [head], "initial state");
      await q.runRetryingLocks(["update-ref", "-m", "wt-loop: initial state", ref, sha, ""]); // "": it must not exist yet
      await q.run(["symbolic-ref", "-m", `wt-loop: checkout ${branch}`, "HEAD", ref]);
      await setIndex(q, snap.full, keep); // the tree is already exactly this commit
      info = { branch, originalBranch: current, originalCommit: head, sha, indexTree: snap.index, stashes: [] };
      return info;
    },

    ...attemptGuard(
      git,
      () => info.sha,
      () => keep,
    ),

    async accept(message, since) {
      info.sha = await git.uninterruptible().commitAll(message, since.nested);
      return [...since.commits, info.sha];
    },

    async finish(choice) {
      if (choice === "keep") return `Kept the branch ${branch} with the loop's checkpoint commits.`;
      const q = git.uninterruptible(); // after a stop too: the completion runs whole or not at all
      if ((await q.branch()) !== branch)
        throw new UserError(`Cleanup needs HEAD on ${branch}, but it is elsewhere; nothing was changed. The loop's work is on ${branch}.`);
      if (await q.isDirty()) await q.commitAll("wt-loop: final state"); // all the work is on the branch now
      const tip = (await q.head())!;
      const back = info.originalBranch ?? info.originalCommit;
      if (info.originalBranch && (await q.resolve(`refs/heads/${info.originalBranch}`)) !== info.originalCommit)
        throw new UserError(
          `Cleanup did not move you: ${info.originalBranch} moved since the loop started. You are on ${branch} with all the ` +
            `loop's work; bring it over by hand (git checkout ${info.originalBranch} && git merge --squash ${branch}).`,
        );
      // HEAD moves, the tree stays: it already holds all the loop's work, which becomes uncommitted changes.
      if (info.originalBranch) await q.run(["symbolic-ref", "-m", `wt-loop: back to ${back}`, "HEAD", `refs/heads/${info.originalBranch}`]);
      else await q.runRetryingLocks(["update-ref", "--no-deref", "-m", "wt-loop: back", "HEAD", info.originalCommit]);
      await setIndex(q, info.indexTree, keep); // what the user had staged is staged again
      await q.runRetryingLocks(["update-ref", "-d", ref, tip]);
      for (const key of [ORIGIN_KEY(branch), `${ORIGIN_KEY(branch)}-commit`, `${ORIGIN_KEY(branch)}-index`])
        await q.runRetryingLocks(["config", "--unset-all", key]).catch(() => {}); // already absent: fine
      return (
        `Back on ${back} with all the loop's work as uncommitted changes (what you had staged is staged again); ` +
        `deleted ${branch}, which was at ${tip.slice(0, 12)}.`
      );
    },

    rescue() {
      return info
        ? `Your work is safe on the branch ${branch}: the commit ${info.sha.slice(0, 12)} holds it as it was at the last checkpoint (git log ${branch}).`
        : "The working tree was not changed by wt-loop: your work is in it.";
    },

    info: () => info,
    userWork: userWorkKeeper(git),
  };
}

/**
 * Where the loop's branch came from, recorded in git config when it was created (so it survives the
 * state file): `branch:<name>` or `commit:<sha>`, the commit, and the tree of the index the user had.
 */
async function readOrigin(git: Git, branch: string): Promise<{ branch: string | null; commit: string | null; index: string | null }> {
  const get = async (key: string) => (await git.run(["config", key], { allowFailure: true })).stdout.trim() || null;
  const origin = (await get(ORIGIN_KEY(branch))) ?? "";
  const colon = origin.indexOf(":");
  const [kind, at] = colon > 0 ? [origin.slice(0, colon), origin.slice(colon + 1)] : ["", ""];
  return {
    branch: kind === "branch" ? at : null,
    commit: (await get(`${ORIGIN_KEY(branch)}-commit`)) ?? (kind === "commit" ? at : null),
    index: await get(`${ORIGIN_KEY(branch)}-index`),
  };
}
