/**
 * What a runner that died (SIGKILL, a closed window) can leave behind, finished by the next
 * `start`/`run` before anything else: a completion it had begun (`completing` in its state), and a
 * `.git/index.lock` its git held. Each step is idempotent, so a resume that dies is resumed again;
 * nothing here deletes a copy of the user's work that the tree does not hold.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { UserError } from "../errors.ts";
import { gitRunningIn } from "../proc/git-holders.ts";
import { hasOwnRunner } from "../proc/pid.ts";
import type { State } from "../state/schema.ts";
import type { Git } from "./git.ts";
import { assumeUnchanged, setIndex } from "./snapshot.ts";
import { dropStash, stashEntries } from "./stash-ref.ts";
import { ORIGIN_KEY } from "./strategy.ts";

/** Returns notes for the user; throws a UserError when the cleanup cannot be finished safely. */
export async function resumeAfterDeadRunner(git: Git, previous: State | null): Promise<string[]> {
  const notes: string[] = [];
  if (previous?.completing && hasOwnRunner(previous))
    throw new UserError(`The previous loop (runner pid ${previous.runner_pid}) is still finishing its ${previous.completing}; wait for it.`);
  // Only a previous loop's git can have left the lock: a first run asks git nothing here (a process less before its stories show).
  const lock = previous ? await git.gitPath("index.lock") : null;
  if (previous && lock && existsSync(lock) && !gitRunningIn(previous.worktree_path)) {
    await rm(lock, { force: true });
    notes.push(`Removed ${lock}, left behind by a git process of the previous loop that was killed.`);
  }
  if (!previous?.completing) return notes;
  if (previous.completing === "keep" && previous.on_complete === "pr")
    notes.push(
      "The previous loop was killed while it pushed its branch or opened its pull request: " +
        "the branch is kept, and `wt-loop pr` finishes that (it pushes what is missing and finds a pull request GitHub already made, never a second).",
    );
  const done = previous.completing === "cleanup" ? await finishCleanup(git, previous) : { note: null, finished: true };
  if (done.note) notes.push(done.note);
  // The record says what happened: the completion is done, or (a cleanup that had not begun) none took place.
  Object.assign(
    previous,
    done.finished ? { completing: null, completion: previous.completing } : { completing: null, completion: null, completion_message: done.note },
  );
  Object.assign(previous, { runner_pid: null, agent_pid: null, agent_started: null, completion_pending: false }); // its runner is dead (checked above)
  return notes;
}

async function finishCleanup(git: Git, s: State): Promise<{ note: string; finished: boolean }> {
  const note = await cleanUp(git, s);
  return typeof note === "string" ? { note, finished: true } : note;
}

/** A loop's checkpoint stash: its reflog subject is `ralph:<name>:<story>…` (checkpoint/stash.ts). */
const LOOP_STASH = /^(On [^:]*: )?ralph:/;

/**
 * The state that marks a completion under way may not be ours (a repository can commit one, naming the user's own
 * branch or stashes): as the seal does for its commands, only what this repository shows a loop made is acted on —
 * a branch whose origin the loop recorded in the repository's own config (no commit can carry that) and which
 * matches the state's, a stash entry with the loop's subject.
 */
async function cleanUp(git: Git, s: State): Promise<string | { note: string; finished: false }> {
  if (s.checkpoint === "stash") {
    const listed = new Map((await stashEntries(git)).map((e) => [e.sha, e.subject]));
    const named = (s.checkpoint_stashes ?? []).filter((sha) => listed.has(sha));
    const left = named.filter((sha) => LOOP_STASH.test(listed.get(sha)!));
    for (const sha of left) await dropStash(git, sha);
    const foreign = named.length - left.length;
    const kept = foreign ? ` Kept ${foreign} stash entr${foreign === 1 ? "y" : "ies"} the state named that no loop made (a state this run did not write).` : "";
    return `Finished the previous loop's interrupted cleanup: dropped its ${left.length} remaining checkpoint stash(es).${kept}`;
  }
  const branch = s.checkpoint_branch;
  const tip = branch ? await git.resolve(`refs/heads/${branch}`) : null;
  if (!branch || !tip) return "The previous loop's cleanup had finished.";
  const origin = (await git.run(["config", ORIGIN_KEY(branch)], { allowFailure: true })).stdout.trim();
  const stated = s.original_branch ? `branch:${s.original_branch}` : `commit:${s.original_commit}`;
  if (origin !== stated)
    return {
      note:
        `The previous loop's state says a cleanup of ${branch} was under way, but ${branch} was not made by a loop ` +
        `${origin ? `starting from ${s.original_branch ?? s.original_commit}` : "of wt-loop here"} (a state this run did not write): nothing was changed.`,
      finished: false,
    };
  const current = await git.branch();
  const back = s.original_branch ?? s.original_commit;
  const onOriginal = s.original_branch ? current === s.original_branch : current === null && (await git.head()) === s.original_commit;
  // Interrupted before HEAD moved: nothing was changed yet; the work stays on the branch (a new loop continues there).
  if (current === branch)
    return {
      note: `The previous loop's cleanup was interrupted before it began: nothing was changed, and its work is on ${branch} (checked out here).`,
      finished: false,
    };
  // HEAD was moved back: the tree holds the loop's work if it matches the branch's last commit.
  const holds = (await git.snapshot()) === (await git.treeOf(tip));
  if (!onOriginal || !holds)
    throw new UserError(
      `The previous loop's cleanup was interrupted, and ${branch} (at ${tip.slice(0, 12)}) holds work your working tree ` +
        `does not. Bring it over by hand (git checkout ${s.original_branch ?? s.original_commit} && git merge --squash ${branch}), ` +
        `or keep it aside (git branch -m ${branch} ${branch}-old); then start again.`,
    );
  if (s.index_tree) await setIndex(git, s.index_tree, await assumeUnchanged(git));
  await git.runRetryingLocks(["update-ref", "-d", `refs/heads/${branch}`, tip]);
  for (const key of [ORIGIN_KEY(branch), `${ORIGIN_KEY(branch)}-commit`, `${ORIGIN_KEY(branch)}-index`])
    await git.runRetryingLocks(["config", "--unset-all", key]).catch(() => {});
  return (
    `Finished the previous loop's interrupted cleanup: you are on ${back} with all its work as uncommitted changes; ` +
    `deleted ${branch} (it was at ${tip.slice(0, 12)}).`
  );
}

/**
 * The stash entries a runner that died before its completion had recorded (some perhaps never
 * stored, or dropped already): the next stash loop takes them over and drops them as its own. A loop
 * that finished its completion (`keep`, a harness failure) left its entries to the user on purpose.
 */
export function stashesLeftBy(previous: State | null): string[] {
  if (!previous || previous.checkpoint !== "stash" || previous.completion || previous.completing) return [];
  return previous.checkpoint_stashes ?? [];
}

/**
 * The snapshot of the user's work a runner that died before its loop's end had recorded (its ref
 * perhaps not yet written): the next run keeps it rather than take a new one of a tree the loop
 * already changed. A loop that reached its end settled it (deleted, or kept with `lost` named to the user).
 */
export function userWorkLeftBy(previous: State | null): State["user_work"] {
  const w = previous?.user_work;
  return w && w.lost === null ? w : null;
}
