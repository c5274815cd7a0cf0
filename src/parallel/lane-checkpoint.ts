/**
 * `--parallel`: the checkpoint of one lane (docs/parallel.md), so an attempt in a lane is judged by the same
 * engine as in the worktree (engine/attempt.ts). The lane is made at the loop branch's head; that commit is its
 * checkpoint. Revert, changes and hold are the branch checkpoint's (checkpoint/attempt-guard.ts): other lanes'
 * branches are checked out in their own worktrees, so their moves are never this agent's doing. Accepting
 * commits the lane (`Lanes.commit`); the merge queue, not this, puts the work on the loop branch.
 */
import type { Git } from "../checkpoint/git.ts";
import { attemptGuard } from "../checkpoint/attempt-guard.ts";
import type { Checkpoint, CheckpointInfo } from "../checkpoint/strategy.ts";
import { userWorkKeeper } from "../checkpoint/user-work.ts";
import type { LanePlan, Lanes } from "./ports.ts";

export function laneCheckpoint(git: Git, plan: LanePlan, lanes: Lanes): Checkpoint {
  const info: CheckpointInfo = { branch: plan.branch, originalBranch: null, originalCommit: plan.base, sha: plan.base, indexTree: "", stashes: [] };
  const unsupported = (what: string) => () => {
    throw new Error(`A lane's checkpoint has no ${what}: the loop's own checkpoint does that in the main worktree`);
  };
  return {
    init: async () => info,
    ...attemptGuard(
      git,
      () => info.sha,
      () => [],
    ),
    async accept(message, since) {
      const head = await lanes.commit(plan, message);
      const made = head === info.sha || since.commits.includes(head) ? [] : [head];
      info.sha = head;
      return [...since.commits, ...made];
    },
    finish: unsupported("completion"),
    rescue: () => `The lane's work is on its branch ${plan.branch} (git log ${plan.branch}).`,
    info: () => info,
    userWork: userWorkKeeper(git),
  };
}
