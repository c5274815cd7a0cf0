/**
 * A checkpoint strategy (SPEC §5) saves the worktree before a story's attempts, puts it back after
 * a failed one, keeps a completed story's work, and ends the loop with cleanup or keep. The engine
 * sees only this interface; `branch.ts` and `stash.ts` know nothing of each other.
 */
import { existsSync } from "node:fs";
import { UserError } from "../errors.ts";
import type { Git } from "./git.ts";

export interface CheckpointInfo {
  /** `ralph/{name}` for branch checkpoints, null for stash. */
  branch: string | null;
  originalBranch: string | null;
  originalCommit: string;
  /** The commit the worktree returns to on revert. */
  sha: string;
}

export interface Checkpoint {
  init(): Promise<CheckpointInfo>;
  /** Before an attempt at `storyId`: make sure its checkpoint exists (idempotent per story). */
  ensure(storyId: string): Promise<void>;
  /** Back to the checkpoint: the attempt's files, commits and untracked files are gone. */
  revert(): Promise<void>;
  /**
   * What an attempt left since the checkpoint (SPEC §6 "progress": a new commit or a change in the
   * working tree), measured before any revert. An attempt always starts at the checkpoint.
   */
  changes(): Promise<Changes>;
  /** The work since the checkpoint is kept and becomes the new checkpoint; returns all commit hashes made. */
  accept(message: string, since: Changes): Promise<string[]>;
  finish(choice: "cleanup" | "keep"): Promise<string>;
  info(): CheckpointInfo;
}

export interface Changes {
  progress: boolean;
  /** Commits made since the checkpoint (by the agent), oldest first. */
  commits: string[];
}

const IN_PROGRESS: [string, string][] = [
  ["MERGE_HEAD", "A merge"],
  ["rebase-merge", "A rebase"],
  ["rebase-apply", "A rebase or `git am`"],
  ["CHERRY_PICK_HEAD", "A cherry-pick"],
  ["REVERT_HEAD", "A revert"],
  ["BISECT_LOG", "A bisect"],
];

/**
 * Refuses to start in the middle of a merge, rebase, cherry-pick, revert or bisect: the initial
 * checkpoint commit would conclude (or corrupt) the user's operation.
 */
export async function refuseOperationInProgress(git: Git): Promise<void> {
  for (const [path, what] of IN_PROGRESS) {
    if (existsSync(await git.gitPath(path)))
      throw new UserError(`${what} is in progress in this worktree (see \`git status\`). Finish or abort it, then start the loop.`);
  }
}

export async function requireCommit(git: Git): Promise<string> {
  const head = await git.head();
  if (!head)
    throw new UserError(
      "This repository has no commit yet, so there is nothing to check out back to. " +
        "Make a first commit (for example `git commit --allow-empty -m init`), then start the loop again.",
    );
  return head;
}

/** A branch-name-safe form of the change or worktree name. */
export function loopBranchName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._/-]+/g, "-").replace(/\.\.+/g, ".").replace(/^[-./]+|[-./]+$/g, "").replace(/\.lock$/, "");
  return `ralph/${safe || "loop"}`;
}
