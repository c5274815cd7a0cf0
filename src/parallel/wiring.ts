/**
 * `--parallel`: the lanes, the merge queue and a lane's checkpoint for the loop of one worktree, made from its
 * Git (the runner's, with the loop's stop signal and command timeout) and its loop branch.
 */
import { Git } from "../checkpoint/git.ts";
import { laneCheckpoint } from "./lane-checkpoint.ts";
import { gitLanes } from "./lanes.ts";
import { mergeQueue } from "./merge-queue.ts";
import type { LanePlan, Lanes, MergeQueue } from "./ports.ts";
import type { Checkpoint } from "../checkpoint/strategy.ts";

export interface LaneWiring {
  lanes: Lanes;
  queue: MergeQueue;
  checkpointIn(plan: LanePlan): Checkpoint;
}

export async function laneWiring(git: Git, loopBranch: string): Promise<LaneWiring> {
  // (What must take turns — registering and removing lanes in git's admin folder — does, in gitLanes, per
  // repository; a lane's checkout runs beside the others'.)
  const lanes = gitLanes(git, { commonDir: await git.commonDir(), loopBranch });
  return {
    lanes,
    queue: mergeQueue(git, loopBranch),
    checkpointIn: (plan) => laneCheckpoint(new Git({ ...git.ctx, cwd: plan.worktree }), plan, lanes),
  };
}
