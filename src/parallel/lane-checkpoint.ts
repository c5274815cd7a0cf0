/**
 * `--parallel`: the checkpoint of one lane (docs/parallel.md), so an attempt in a lane is judged by the same
 * engine as in the worktree (loop/attempt.ts). The lane is made at the loop branch's head; that commit is its
 * checkpoint. Revert, changes and hold are the branch checkpoint's (refs.ts, snapshot.ts): other lanes'
 * branches are checked out in their own worktrees, so their moves are never this agent's doing. Accepting
 * commits the lane (`Lanes.commit`); the merge queue, not this, puts the work on the loop branch.
 */
import { committedChanges, composeChanges, treeStatus } from "../checkpoint/changed-files.ts";
import type { Git } from "../checkpoint/git.ts";
import { holdTree } from "../checkpoint/hold.ts";
import { readRefs, recoverIgnored, refsViolation, restoreRefs, type RefsAt } from "../checkpoint/refs.ts";
import { deletedIgnored, ignoredPaths, restoreSnapshot } from "../checkpoint/snapshot.ts";
import type { Checkpoint, CheckpointInfo } from "../checkpoint/strategy.ts";
import { userWorkKeeper } from "../checkpoint/user-work.ts";
import type { LanePlan, Lanes } from "./ports.ts";

export function laneCheckpoint(git: Git, plan: LanePlan, lanes: Lanes): Checkpoint {
  const info: CheckpointInfo = { branch: plan.branch, originalBranch: null, originalCommit: plan.base, sha: plan.base, indexTree: "", stashes: [] };
  let refs: RefsAt | null = null;
  let ignored: string[] = [];
  let untouched = false;
  const tree = (sha: string) => git.treeOf(sha);
  const unsupported = (what: string) => () => {
    throw new Error(`A lane's checkpoint has no ${what}: the loop's own checkpoint does that in the main worktree`);
  };
  return {
    init: async () => info,
    async ensure() {
      untouched = false;
      const [at, present] = await Promise.all([readRefs(git), ignoredPaths(git)]);
      refs = at;
      ignored = [...new Set([...ignored, ...present])];
    },
    async revert() {
      if (untouched) return [];
      const q = git.uninterruptible();
      const { notes, stray } = refs ? await restoreRefs(q, refs, info.sha) : { notes: [], stray: [] };
      const t = await tree(info.sha);
      await restoreSnapshot(q, { full: t, index: t }, [], ignored);
      const back = await recoverIgnored(q, stray);
      return back.length ? [...notes, `ignored files git had deleted were brought back: ${back.join(", ")}`] : notes;
    },
    async changes() {
      const [violation, { head, dirty, files: inTree }] = await Promise.all([
        refs ? refsViolation(git, refs, info.sha).then((r) => r.violation) : null,
        treeStatus(git),
      ]);
      untouched = !violation && !dirty && head === info.sha;
      const gone = deletedIgnored(git.ctx.cwd, ignored);
      ignored = ignored.filter((p) => !gone.includes(p));
      const files = untouched ? [] : composeChanges(await committedChanges(git, info.sha, head), inTree);
      return { progress: head !== info.sha || dirty, commits: violation ? [] : await git.commitsBetween(info.sha, head), violation, deletedIgnored: gone, files };
    },
    async accept(message, since) {
      const head = await lanes.commit(plan, message);
      const made = head === info.sha || since.commits.includes(head) ? [] : [head];
      info.sha = head;
      return [...since.commits, ...made];
    },
    hold: async () => holdTree(git, await tree(info.sha), [], ignored),
    finish: unsupported("completion"),
    rescue: () => `The lane's work is on its branch ${plan.branch} (git log ${plan.branch}).`,
    info: () => info,
    userWork: userWorkKeeper(git),
  };
}
