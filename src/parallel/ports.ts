/**
 * `--parallel` (docs/parallel.md): the seam between the scheduler (scheduler.ts: which story runs when, the
 * attempts, the state) and the git mechanics of lanes and the merge queue (lanes.ts, merge-queue.ts), so
 * each is built and tested on its own. Lanes live under the repository's common git dir, outside the
 * user's tree; the main worktree runs no agent and is where work is integrated (branch checkpoints only).
 */
import type { Lane } from "../state/schema.ts";

/** What a lane is made from and called; the scheduler records it (status `opening`) in the state before `open`. */
export interface LanePlan {
  story_id: string;
  attempt: number;
  /** The loop branch's head the lane starts from. */
  base: string;
  worktree: string;
  branch: string;
}

export interface Lanes {
  /** Where the lane of this story and attempt lives, and its branch name: pure, so it can be recorded first. */
  plan(storyId: string, attempt: number, base: string): LanePlan;
  /** Makes the linked worktree and its branch at `base`; idempotent (a lane half made by a killed runner is made again). */
  open(plan: LanePlan): Promise<void>;
  /**
   * The lane's accepted work as commits on its branch over `base` (one checkpoint commit of everything the
   * attempt left, the agent's own commits kept); returns the lane head.
   */
  commit(lane: Lane | LanePlan, message: string): Promise<string>;
  /**
   * Removes the worktree and the branch. Commits not yet on the loop branch are first kept under a ref
   * (`refs/wt-loop/<worktree>-<hash>/lane-<story>-<attempt>`), returned so the caller can name it; null when nothing needed keeping.
   */
  close(lane: Lane | LanePlan, opts: { integrated: boolean }): Promise<string | null>;
  /**
   * After a runner died (kill -9): every lane worktree and branch of this loop that the state names or git
   * lists is closed as above (work kept by a ref unless integrated). Returns one note per lane for the reason.
   */
  sweep(recorded: Lane[]): Promise<string[]>;
  /**
   * At the loop's end, no lane open: every kept lane ref of this loop whose content the loop branch already
   * holds (judged by a merge, as `sweep` does, not by any recorded status) is deleted; returns the ones kept.
   * Optional: a Lanes without it leaves the refs as they are.
   */
  tidy?(): Promise<KeptLane[]>;
}

/** A lane's work kept under a ref because the loop branch does not hold it. */
export interface KeptLane {
  ref: string;
  story_id: string;
  attempt: number;
}

export type Integration =
  | { kind: "integrated"; commits: string[]; head: string }
  | { kind: "conflict"; paths: string[]; reason: string; meanwhile: boolean }
  | { kind: "verify_failed"; reason: string; meanwhile: boolean };
// `meanwhile`: the loop branch had moved since the lane was made (other lanes' work, the user's edits), so the
// schedule, not the agent, may be the cause: the story's attempt is not counted and its next one runs alone.

export interface MergeQueue {
  /**
   * Puts the lane's commits (`base..lane head`) on the loop branch in the main worktree, one lane at a time
   * (calls are queued), then runs `verify` on the integrated tree. On a conflict or a failed verify the loop
   * branch and tree are back exactly where they were before this call: nothing is resolved silently and no
   * conflict marker is ever committed.
   */
  integrate(lane: Lane | LanePlan, verify: (() => Promise<{ ok: true } | { ok: false; reason: string }>) | null): Promise<Integration>;
  /** The loop branch's head now (what a new lane starts from). */
  head(): Promise<string>;
}
