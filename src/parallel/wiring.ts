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
  const lanes = oneAtATime(gitLanes(git, { commonDir: await git.commonDir(), loopBranch }));
  return {
    lanes,
    queue: mergeQueue(git, loopBranch),
    checkpointIn: (plan) => laneCheckpoint(new Git({ ...git.ctx, cwd: plan.worktree }), plan, lanes),
  };
}

/**
 * Lanes open and close one at a time: `git worktree add` writes a worktree's admin folder in steps, and a
 * `worktree list` or `prune` of another lane meanwhile reads it half made ("failed to read …/commondir").
 */
function oneAtATime(lanes: Lanes): Lanes {
  let turn: Promise<unknown> = Promise.resolve();
  const queued = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = turn.then(fn, fn);
    turn = run.catch(() => {});
    return run;
  };
  return {
    plan: (id, attempt, base) => lanes.plan(id, attempt, base),
    open: (plan) => queued(() => lanes.open(plan)),
    commit: (lane, message) => lanes.commit(lane, message),
    close: (lane, opts) => queued(() => lanes.close(lane, opts)),
    sweep: (recorded) => queued(() => lanes.sweep(recorded)),
    ...(lanes.tidy ? { tidy: () => queued(() => lanes.tidy!()) } : {}),
  };
}
