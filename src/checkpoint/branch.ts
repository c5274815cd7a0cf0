/**
 * Branch checkpoints (the default): the loop works on `ralph/{name}`, whose latest commit is the
 * checkpoint. The user's uncommitted work is committed first as `initial state`, so nothing is lost
 * and a revert can never take it away.
 */
import { UserError } from "../errors.ts";
import type { Git } from "./git.ts";
import { loopBranchName, requireCommit, type Checkpoint, type CheckpointInfo } from "./strategy.ts";

const ORIGIN_KEY = (branch: string) => `branch.${branch}.wtloop-original`;

export function branchCheckpoint(git: Git, name: string): Checkpoint {
  const branch = loopBranchName(name);
  let info: CheckpointInfo;

  return {
    async init() {
      const head = await requireCommit(git);
      const current = await git.branch();
      if (current === branch) {
        // Restart: continue on the branch, keep the original it recorded when it was created.
        const origin = (await git.run(["config", ORIGIN_KEY(branch)], { allowFailure: true })).stdout.trim();
        const [kind, ref] = origin.includes(":") ? [origin.slice(0, origin.indexOf(":")), origin.slice(origin.indexOf(":") + 1)] : ["", ""];
        info = { branch, originalBranch: kind === "branch" ? ref : null, originalCommit: kind === "commit" ? ref : head, sha: head };
        if (await git.isDirty()) info.sha = await git.commitAll("initial state");
        return info;
      }
      if (await git.resolve(`refs/heads/${branch}`))
        throw new UserError(
          `The branch ${branch} already exists from an earlier loop. To continue that loop, check it out ` +
            `(git checkout ${branch}) and start again there; to start over, delete it (git branch -D ${branch}).`,
        );
      await git.run(["checkout", "-q", "-b", branch]); // carries the uncommitted work along
      await git.run(["config", ORIGIN_KEY(branch), current ? `branch:${current}` : `commit:${head}`]);
      info = { branch, originalBranch: current, originalCommit: head, sha: await git.commitAll("initial state") };
      return info;
    },

    async ensure() {},

    async revert() {
      // -B also brings HEAD back if the agent switched branches; clean -fd leaves ignored files alone.
      await git.run(["checkout", "-q", "-f", "-B", branch, info.sha]);
      await git.run(["clean", "-fdq"]);
    },

    async changes() {
      // The checkpoint is a clean tree at info.sha, so progress is "HEAD moved or the tree is dirty".
      const { head, dirty } = await git.headAndDirty();
      return { progress: head !== info.sha || dirty, commits: await git.commitsBetween(info.sha, head) };
    },

    async accept(message, since) {
      info.sha = await git.commitAll(message);
      return [...since.commits, info.sha];
    },

    async finish(choice) {
      if (choice === "keep") return `Kept the branch ${branch} with the loop's checkpoint commits.`;
      if (await git.isDirty()) await git.commitAll("wt-loop: final state");
      const back = info.originalBranch ?? info.originalCommit;
      await git.run(info.originalBranch ? ["checkout", "-q", info.originalBranch] : ["checkout", "-q", "--detach", info.originalCommit]);
      const merged = await git.run(["merge", "--squash", branch], { allowFailure: true });
      if (merged.code !== 0) {
        // The original moved on and conflicts: undo the half merge (all the work is still on the branch).
        await git.run(["reset", "-q", "--hard", "HEAD"]);
        await git.run(["checkout", "-q", branch]);
        throw new UserError(
          `Cleanup could not squash ${branch} onto ${back} (${merged.stderr.trim() || "merge conflict"}). ` +
            `You are on ${branch} with all the loop's work; merge it by hand.`,
        );
      }
      await git.run(["reset", "-q"]); // unstage: the work comes back as uncommitted changes
      await git.run(["branch", "-q", "-D", branch]);
      await git.run(["config", "--unset", ORIGIN_KEY(branch)], { allowFailure: true });
      return `Back on ${back} with all the loop's work as uncommitted changes; deleted ${branch}.`;
    },

    info: () => info,
  };
}
