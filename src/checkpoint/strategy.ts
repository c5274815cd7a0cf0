/**
 * A checkpoint strategy (docs/how-it-works.md) saves the worktree before a story's attempts, puts it back after
 * a failed one, keeps a completed story's work, and ends the loop with cleanup or keep. The engine
 * sees only this interface; `branch.ts` and `stash.ts` know nothing of each other.
 */
import { existsSync } from "node:fs";
import { UserError } from "../errors.ts";
import type { ChangedFile } from "./changed-files.ts";
import type { Git } from "./git.ts";
import type { Held } from "./hold.ts";
import { assumeUnchanged } from "./snapshot.ts";
import type { UserWorkKeeper } from "./user-work.ts";

export interface CheckpointInfo {
  /** `ralph/{name}` for branch checkpoints, null for stash. */
  branch: string | null;
  originalBranch: string | null;
  originalCommit: string;
  /** The commit the worktree returns to on revert. */
  sha: string;
  /** The tree of the index the user had at start: staged again by cleanup. */
  indexTree: string;
  /**
   * Stash mode: the stash commits this loop made and still holds (never another loop's or the user's),
   * with those a killed runner of this loop had recorded: each is recorded before it is stored.
   */
  stashes: string[];
}

export interface Checkpoint {
  init(): Promise<CheckpointInfo>;
  /**
   * Before an attempt at `storyId`: make sure its checkpoint exists (idempotent per story).
   * `recordIntent` is awaited after a new stash entry is in `info().stashes` and before it is stored:
   * the caller writes it down first, so a runner killed in between leaves no entry nobody knows of.
   */
  ensure(storyId: string, recordIntent?: () => Promise<void>): Promise<void>;
  /**
   * Back to the checkpoint: the attempt's files, commits and untracked files are gone, branches the
   * agent moved are put back. Returns notes naming commits taken off a branch (for the reason).
   */
  revert(): Promise<string[]>;
  /**
   * What an attempt left since the checkpoint ("progress" in docs/how-it-works.md: a new commit or a change in the
   * working tree), measured before any revert. An attempt always starts at the checkpoint.
   */
  changes(): Promise<Changes>;
  /** The work since the checkpoint is kept and becomes the new checkpoint; returns all commit hashes made. */
  accept(message: string, since: Changes): Promise<string[]>;
  /**
   * Records the tree as it is now (an attempt's candidate), to put it back after a run that must not change it
   * (engine/gates/review.ts, audit.ts). Its diff starts from the checkpoint, or from `base` (a commit) when given.
   */
  hold(base?: string): Promise<Held>;
  /**
   * Writes what the attempt changed — from its checkpoint to the tree it left, untracked files included — into
   * `file` as git's diff (the Files tab's Enter); its size in bytes. Called before a revert, or once accept() kept it.
   */
  writeDiff(file: string): Promise<number>;
  finish(choice: "cleanup" | "keep"): Promise<string>;
  info(): CheckpointInfo;
  /** Where the user's work is after a harness failure, with the command that brings it back. */
  rescue(): string;
  /** The snapshot of the user's uncommitted work from before the loop, kept past the loop (user-work.ts). */
  userWork: UserWorkKeeper;
}

export interface Changes {
  progress: boolean;
  /** Commits made since the checkpoint (by the agent), oldest first. */
  commits: string[];
  /** Why the attempt cannot be accepted whatever it claims (it switched branches, moved one, rewrote history). */
  violation: string | null;
  /** Ignored files or folders of the user's that the attempt deleted: no checkpoint holds them (snapshot.ts deletedIgnored). */
  deletedIgnored: string[];
  /** Every path changed since the checkpoint (committed or not), for the iteration's record. */
  files: ChangedFile[];
  /**
   * The nested repositories (untracked folders with a `.git` of their own) the measure saw, which `accept` leaves
   * out of its commit without listing them again. Absent when unknown, or when something ran in the tree after the
   * measure (a reviewer: engine/attempt.ts); a new measure (after --verify) brings it up to date.
   */
  nested?: string[];
}

/**
 * Takes a new measure of an attempt (the agent's, then again after --verify) into `into`: the
 * latest view, and every deleted ignored path either one saw (each is reported only once).
 */
export function remeasured(into: Changes, latest: Changes): void {
  const before = into.deletedIgnored ?? [];
  Object.assign(into, latest, { deletedIgnored: [...before, ...latest.deletedIgnored] });
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
  // Asked of git at once, not one after another: six git calls on the way to every loop's start.
  const paths = await Promise.all(IN_PROGRESS.map(([path]) => git.gitPath(path)));
  IN_PROGRESS.forEach(([, what], i) => {
    if (existsSync(paths[i]!)) throw new UserError(`${what} is in progress in this worktree (see \`git status\`). Finish or abort it, then start the loop.`);
  });
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

/**
 * Every refusal a checkpoint strategy would make, before anything is written (start/run preflight);
 * returns warnings to show.
 */
export async function checkpointPreflight(git: Git, kind: "branch" | "stash", name: string): Promise<string[]> {
  await refuseOperationInProgress(git);
  await requireCommit(git);
  if (kind === "branch") await refuseForeignBranch(git, loopBranchName(name));
  const pinned = await assumeUnchanged(git);
  return pinned.length
    ? [
        `${pinned.length} file(s) are marked --assume-unchanged: ${pinned.join(", ")}. wt-loop neither saves nor restores ` +
          "them, so their local content is kept as it is, but a revert will not undo an agent's edit to them either.",
      ]
    : [];
}

export const ORIGIN_KEY = (branch: string) => `branch.${branch}.wtloop-original`;

/** A `ralph/{name}` the loop did not create (no recorded origin) is the user's: never touched. */
async function refuseForeignBranch(git: Git, branch: string): Promise<void> {
  const tip = await git.resolve(`refs/heads/${branch}`);
  if (!tip) return;
  const origin = (await git.run(["config", ORIGIN_KEY(branch)], { allowFailure: true })).stdout.trim();
  if (!origin)
    throw new UserError(
      `A branch ${branch} exists that wt-loop did not create, so the loop will not use or delete it. ` +
        `Rename it (git branch -m ${branch} <new-name>), or give the loop another name with --change.`,
    );
  if ((await git.branch()) === branch) return; // a restart on the loop's own branch continues it
  const holds = (await git.snapshot()) === (await git.treeOf(tip));
  throw new UserError(
    `The branch ${branch} exists from an earlier loop. ` +
      (holds
        ? `Your working tree already holds all of its work (an earlier cleanup was interrupted): delete it with ` +
          `\`git branch -D ${branch}\` and start again, or check it out (git checkout ${branch}) to continue that loop.`
        : `It holds work that is not in your working tree. To continue that loop, check it out (git checkout ${branch}) ` +
          `and start again there; to start over, keep it aside first (git branch -m ${branch} ${branch}-old).`),
  );
}

/**
 * A branch-name-safe form of the change or worktree name, under `ralph/`: the spec's name for a loop's branch
 * (SPEC §checkpoints), kept rather than named for the product: a restart continues on an existing `ralph/{change}`,
 * and another name would strand the branches loops have already left.
 */
export function loopBranchName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._/-]+/g, "-")
    .replace(/\.\.+/g, ".")
    .replace(/^[-./]+|[-./]+$/g, "")
    .replace(/\.lock$/, "");
  return `ralph/${safe || "loop"}`;
}
