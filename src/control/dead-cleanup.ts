/**
 * `wt-loop stop --cleanup` when the loop's runner is dead (kill -9, a closed window) and no completion took
 * place: the user asked for the cleanup, so it is done here as the runner would have done it (finish.ts →
 * Checkpoint.finish("cleanup")), not dropped. Under --parallel the lanes are closed first (stop-loop.ts) and
 * the lane refs tidied while the loop branch still exists, so the ones kept can be named.
 */
import { branchCheckpoint } from "../checkpoint/branch.ts";
import type { Git } from "../checkpoint/git.ts";
import { dropStash, stashShas } from "../checkpoint/stash-ref.ts";
import { putBackHeld } from "../checkpoint/held-after-kill.ts";
import { loopBranchName } from "../checkpoint/strategy.ts";
import { errorMessage, thenSentence, UserError } from "../errors.ts";
import { gitLanes } from "../parallel/lanes.ts";
import { notAmongTheChanges } from "../engine/finish.ts";
import { isFinal } from "../state/final.ts";
import type { State } from "../state/schema.ts";

/** Whether a `stop --cleanup` finds a loop whose dead runner never did its completion. */
export const cleanupLeft = (s: State) => isFinal(s.status) && s.completion === null && !s.completing && s.runner_pid === null;

/** Does the cleanup on `state` (updated in place: the caller writes it); returns what to tell the user. */
export async function cleanupAfterDeadRunner(git: Git, state: State): Promise<string> {
  const q = git.uninterruptible();
  // As the runner would have before its completion: what the auditor or the reviewer it ran had changed goes back first.
  const putBack = state.held ? await putBackHeld(q, state.held, state.held.by) : null;
  state.held = null;
  const said = (m: string) => (putBack ? `${putBack}\n${m}` : m);
  let message: string;
  try {
    message = state.checkpoint === "stash" ? await dropStashes(q, state) : await backToYourBranch(q, state);
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    // A refusal that changed nothing: the loop stays as it is, and the message says what to do by hand.
    state.completion_message = `Cleanup not done: ${errorMessage(err)}`;
    return said(state.completion_message);
  }
  Object.assign(state, { completion: "cleanup", completion_message: message, reason: thenSentence(state.reason ?? `The loop ended ${state.status}`, message) });
  return said(message);
}

async function backToYourBranch(git: Git, state: State): Promise<string> {
  const name = state.change ?? state.worktree_name;
  const branch = state.checkpoint_branch ?? loopBranchName(name);
  const on = await git.branch();
  // Never made anew here: the checkpoint's init would create a branch that is not there.
  if (!(await git.resolve(`refs/heads/${branch}`))) throw new UserError(`the loop branch ${branch} no longer exists, so there is nothing to clean up.`);
  if (on !== branch)
    throw new UserError(
      `HEAD is on ${on ?? "a detached commit"}, not on the loop branch ${branch}, so nothing was moved. ` +
        `The loop's work is on ${branch}: bring it over with \`git merge --squash ${branch}\`, then \`git branch -D ${branch}\`.`,
    );
  const kept = (state.parallel ?? 1) > 1 ? await lanesKept(git, branch) : "";
  const cp = branchCheckpoint(git, name);
  await cp.init(); // on the branch: reads where it came from (recorded in git config when it was made)
  const done = await cp.finish("cleanup");
  return kept ? thenSentence(done, kept) : done;
}

async function lanesKept(git: Git, loopBranch: string): Promise<string> {
  const kept = (await gitLanes(git, { commonDir: await git.commonDir(), loopBranch }).tidy?.()) ?? [];
  if (!kept.length) return "";
  return notAmongTheChanges(kept);
}

async function dropStashes(git: Git, state: State): Promise<string> {
  const listed = new Set(await stashShas(git));
  const mine = (state.checkpoint_stashes ?? []).filter((sha) => listed.has(sha));
  for (const sha of mine) await dropStash(git, sha);
  return `The loop's work is in the working tree; dropped ${mine.length} checkpoint stash(es) this loop made.`;
}
