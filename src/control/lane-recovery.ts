/**
 * `--parallel` after a runner died (kill -9, a closed window) with lanes open (docs/parallel.md, "How lanes
 * run"): before anything else, the next `start`/`run` ends what the lanes' agents left (they carry the run's
 * tag), finishes or undoes an integration the kill cut (the merge queue's journal), and closes every lane of
 * the loop, keeping work that is not on the loop branch under a ref. The new run then redoes what is not
 * integrated: a story whose work reached the loop branch is complete in the tasks file, and counts.
 */
import type { Git } from "../checkpoint/git.ts";
import { loopBranchName } from "../checkpoint/strategy.ts";
import { gitLanes } from "../parallel/lanes.ts";
import { recoverIntegration } from "../parallel/merge-queue.ts";
import type { State } from "../state/schema.ts";

export async function recoverLanes(git: Git, previous: State | null): Promise<string[]> {
  if (!previous || (previous.parallel ?? 1) <= 1) return [];
  const loopBranch = previous.checkpoint_branch ?? loopBranchName(previous.change ?? previous.worktree_name);
  const notes: string[] = [];
  if (await git.resolve(`refs/heads/${loopBranch}`)) {
    const r = await recoverIntegration(git, loopBranch);
    if (r.kind === "undone")
      notes.push(
        `An integration cut by the previous runner's end was undone: the loop branch ${loopBranch} and this tree are back ` +
          `at ${r.head.slice(0, 12)}${r.notes.length ? ` (${r.notes.join("; ")})` : ""}.`,
      );
  }
  const swept = await gitLanes(git, { commonDir: await git.commonDir(), loopBranch }).sweep(previous.lanes ?? []);
  if (swept.length) notes.push(`The previous run's lanes were closed: ${swept.join("; ")}. Stories not integrated go again.`);
  previous.lanes = [];
  return notes;
}
