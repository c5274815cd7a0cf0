/**
 * The merge queue (docs/parallel.md "How lanes are integrated"): lanes are integrated into the loop
 * branch in the main worktree one at a time (calls wait for the one before).
 *
 * The lane's commits are first replayed onto the loop branch's head IN THE LANE (`git rebase`, with no
 * hooks, no rerere, no autostash: a conflict is never resolved for anyone), so the user's worktree is
 * not touched until the whole result exists as commits. Then, under a journal (recover.ts): the branch
 * moves by compare-and-swap from `old` to `new`, the main tree and index move from `old` to `new`
 * (`read-tree -u -m`, which refuses to overwrite anything it did not expect), and `verify` runs on the
 * integrated tree. A failed verify moves branch and tree back. A kill -9 at any point leaves either
 * nothing changed or a journal that `recoverIntegration` undoes whole.
 */
import { existsSync, lstatSync } from "node:fs";
import { join, resolve } from "node:path";
import { Git } from "../checkpoint/git.ts";
import { HarnessError } from "../errors.ts";
import type { Lane } from "../state/schema.ts";
import { real } from "./lane-git.ts";
import type { Integration, LanePlan, MergeQueue } from "./ports.ts";
import { foldUserEdits } from "./user-edits.ts";
import { advanceJournal, clearJournal, journalAndHead, moveTree, recoverIntegration, writeJournal, type Journal } from "./recover.ts";

export { recoverIntegration } from "./recover.ts";

type Verify = (() => Promise<{ ok: true } | { ok: false; reason: string }>) | null;

/**
 * No rerere, autostash or editor of the user's takes part in a replay: it applies cleanly or it conflicts
 * (hooks are off for every git of wt-loop's: proc/git-hardening.ts).
 */
const REPLAY = [
  "-c",
  "rerere.enabled=false",
  "-c",
  "rebase.autoStash=false",
  "-c",
  "rebase.autoSquash=false",
  "-c",
  "rebase.updateRefs=false",
  "-c",
  "commit.gpgsign=false",
  "-c",
  "sequence.editor=:",
  "-c",
  "core.editor=:",
];

/** `git` is the main worktree's, on the loop branch `loopBranch` (no `refs/heads/`). */
export function mergeQueue(git: Git, loopBranch: string): MergeQueue {
  const ref = `refs/heads/${loopBranch}`;
  let queue: Promise<unknown> = Promise.resolve();
  let left: string | null = null; // where the queue last left the loop branch (or found it first)

  async function integrateOne(lane: Lane | LanePlan, verify: Verify): Promise<Integration> {
    const q = git.uninterruptible(); // a stop waits for the integration's git steps; `verify` has its own
    const at = await journalAndHead(q, ref); // a journal left: an integration of this run's that failed half done
    const found = at.journal ? (await recoverIntegration(q, loopBranch)).head || null : at.head;
    if (!found) throw new HarnessError(`The loop branch ${loopBranch} is gone: no lane can be integrated. The lanes' work stays on their branches.`);
    const back = left && found !== left ? await putBack(q, ref, left, found) : found;
    // The user's own edits in the main worktree become a commit of theirs first: a lane that conflicts with them
    // is an ordinary conflict, and an undone integration goes back to that commit, never before it.
    const main = await q.worktreeStatus();
    const old = main.branch === loopBranch ? await foldUserEdits(q, ref, back, lane.story_id, main.paths.length > 0) : back;
    // Where this integration leaves the branch, known here rather than read after it: an agent that moves the
    // branch in between would otherwise be taken for where the queue left it (and the loop's work for the user's).
    left = old;
    const meanwhile = old !== lane.base; // anything integrated since the lane was made
    const replay = await replayInLane(q, lane, old);
    if (replay.kind === "conflict") return { ...replay, meanwhile };
    const commits = await q.commitsBetween(old, replay.head);
    if (commits.length === 0) return { kind: "integrated", commits: [], head: old }; // everything was there already
    await assertMainReady(q, loopBranch);
    const inTheWay = await ignoredInTheWay(q, old, replay.head);
    if (inTheWay.length) return ignoredConflict(lane.story_id, inTheWay); // the agent's doing (a forced add), whatever came meanwhile
    const j = { old, new: replay.head };
    await writeJournal(q, j);
    await q.runRetryingLocks(["update-ref", "-m", `wt-loop: integrate story ${lane.story_id}`, ref, j.new, j.old]);
    await q.refreshIndex(); // a file saved unchanged would stop read-tree as "not uptodate"
    const moved = await q.run(["read-tree", "-u", "-m", j.old, j.new], { allowFailure: true });
    if (moved.code !== 0) {
      await undo(q, j);
      throw new HarnessError(
        `Integrating story ${lane.story_id} could not update the main worktree ${q.ctx.cwd} (${moved.stderr.trim()}); the loop branch was put back. ` +
          `Its work stays on ${lane.branch}.`,
      );
    }
    let verdict: Awaited<ReturnType<NonNullable<Verify>>>;
    try {
      verdict = verify ? await verify() : { ok: true };
    } catch (err) {
      await undo(q, j, await verifyWrote(q, j)); // a stop (or a failure of verify's own) is no verdict: nothing stays half integrated
      throw err;
    }
    // With no --verify nothing ran in the main worktree since read-tree: there is nothing of verify's to look for.
    const wrote = verify ? await verifyWrote(q, j) : null;
    if (!verdict.ok) {
      await undo(q, j, wrote);
      return { kind: "verify_failed", reason: verdict.reason, meanwhile };
    }
    const done = wrote ? await commitVerifyChanges(q, j, wrote, lane.story_id) : j;
    await clearJournal(q, done);
    left = done.new;
    return { kind: "integrated", commits: done.new === j.new ? commits : [...commits, done.new], head: done.new };
  }

  /**
   * As in the sequential loop, what --verify changes is part of the candidate: on an integrated tree that passed,
   * it is committed on top of the lane's commits (the branch and the journal move together), so the main worktree
   * is clean for the next lane and nothing verify wrote is lost (docs/parallel.md, "What --verify writes").
   */
  async function commitVerifyChanges(q: Git, j: Journal, tree: string, story: string): Promise<Journal> {
    const c = await q.commitTree(tree, [j.new], `wt-loop: what --verify changed on the integrated tree of story ${story}`);
    const moved = await advanceJournal(q, ref, j, c);
    await q.run(["read-tree", "--reset", c]); // the tree already is `c`: only the index follows (--reset keeps the user's marks)
    await q.refreshIndex();
    return moved;
  }

  /** A rejected integrated tree goes whole, verify's leftovers with it, as a sequential revert does. */
  async function undo(q: Git, j: Journal, wrote: string | null = null): Promise<void> {
    if (wrote) await moveTree(q, wrote, j.new);
    await q.runRetryingLocks(["update-ref", "-m", "wt-loop: undo an integration", ref, j.old, j.new]);
    await moveTree(q, j.new, j.old);
    await clearJournal(q, j);
  }

  return {
    integrate(lane, verify) {
      const run = queue.then(() => integrateOne(lane, verify)).catch((err) => ((left = null), Promise.reject(err)));
      queue = run.catch(() => {});
      return run;
    },
    async head() {
      const h = await git.resolve(ref);
      if (!h) throw new HarnessError(`The loop branch ${loopBranch} is gone.`);
      left ??= h;
      return h;
    },
  };
}

/**
 * Replays the lane's commits onto `onto` in the lane itself (its branch is rewritten: it is the loop's
 * own). On a conflict the lane is put back as it was and the conflicting paths are returned.
 */
async function replayInLane(
  q: Git,
  lane: Lane | LanePlan,
  onto: string,
): Promise<{ kind: "replayed"; head: string } | Omit<Extract<Integration, { kind: "conflict" }>, "meanwhile">> {
  const lg = new Git({ cwd: lane.worktree, timeoutMs: q.ctx.timeoutMs });
  const env = { ...(await lg.identity()), GIT_EDITOR: ":" };
  // A lane folder that is not (or no longer) a worktree: git would find the repository around it (the lanes live in its
  // git dir). Its git is pinned to the lane's folders (proc/git-hardening.ts), so its `.git` is looked at too.
  // (Its top and where a replay would be, in one `rev-parse`; its branch and changes in one `status`.)
  const where = await lg.run(["rev-parse", "--show-toplevel", "--git-path", "rebase-merge", "--git-path", "rebase-apply"], { allowFailure: true });
  const [top, ...replayDirs] = where.stdout.split("\n");
  if (where.code !== 0 || !top || real(top.trim()) !== real(lane.worktree) || !existsSync(join(lane.worktree, ".git")))
    throw new HarnessError(
      `The lane of story ${lane.story_id} (${lane.worktree}) is not a worktree any more: it was not integrated. Its work, if any, is on ${lane.branch}.`,
    );
  // A replay a kill cut is still in progress there (HEAD detached meanwhile): it is undone and done again.
  if (replayDirs.some((d) => d.trim() && existsSync(resolve(lane.worktree, d.trim())))) await lg.run(["rebase", "--abort"], { allowFailure: true });
  const st = await lg.worktreeStatus();
  if (st.branch !== lane.branch)
    throw new HarnessError(`The lane of story ${lane.story_id} (${lane.worktree}) is not on its branch ${lane.branch}: it was not integrated.`);
  if (st.paths.length)
    throw new HarnessError(
      `The lane of story ${lane.story_id} (${lane.worktree}) has uncommitted changes: its work must be committed (Lanes.commit) before it is integrated.`,
    );
  const r = await lg.run([...REPLAY, "rebase", "--quiet", onto], { allowFailure: true, env });
  if (r.code === 0) return { kind: "replayed", head: (await lg.head())! };
  const paths = (await lg.run(["diff", "--name-only", "--diff-filter=U", "-z"], { allowFailure: true })).stdout.split("\0").filter(Boolean);
  await lg.run(["rebase", "--abort"], { allowFailure: true });
  const what = paths.length ? `in ${paths.join(", ")}` : `(${r.stderr.trim().split("\n")[0] ?? "git rebase failed"})`;
  return {
    kind: "conflict",
    paths,
    reason:
      `Your changes for story ${lane.story_id} conflicted with work integrated meanwhile by other stories ${what}. ` +
      "Nothing was merged for you: this attempt starts from the current code, which holds that work; make the story's changes on top of it.",
  };
}

/** The tree of the main worktree (untracked files included, ignored ones not) when verify changed it, else null. */
async function verifyWrote(q: Git, j: Journal): Promise<string | null> {
  const now = await q.snapshot();
  return now === (await q.treeOf(j.new)) ? null : now;
}

/** The main worktree must be on the loop branch with nothing uncommitted: the integration moves its tree. */
async function assertMainReady(q: Git, loopBranch: string): Promise<void> {
  const { branch: on, paths: dirty } = await q.worktreeStatus();
  if (on !== loopBranch)
    throw new HarnessError(
      `The main worktree ${q.ctx.cwd} is on ${on ?? "a detached HEAD"}, not on the loop branch ${loopBranch}: lanes are integrated there. ` +
        `Switch back (git switch ${loopBranch}) and start the loop again.`,
    );
  if (dirty.length)
    throw new HarnessError(
      `The main worktree ${q.ctx.cwd} has changes the loop did not make (${dirty.slice(0, 5).join(", ")}${dirty.length > 5 ? ", …" : ""}): ` +
        "the merge queue integrates lanes there and needs it clean (what --verify writes there is committed or undone by the queue itself). " +
        "Commit them or move them away (git stash -u), then start the loop again.",
    );
}

/**
 * Paths the lane adds where the main worktree already has a file (its status is clean, so git ignores it: a
 * `.env`, a build output). `read-tree -u -m` would overwrite such a file, and no commit holds it to bring it back.
 */
async function ignoredInTheWay(q: Git, old: string, now: string): Promise<string[]> {
  const added = (await q.run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", "--diff-filter=A", old, now])).stdout.split("\0").filter(Boolean);
  return added.filter((p) => {
    try {
      lstatSync(join(q.ctx.cwd, p));
      return true;
    } catch {
      return false;
    }
  });
}

/** Not integrated, as a conflict: the story goes again, told which paths to leave alone. */
function ignoredConflict(story: string, paths: string[]): Extract<Integration, { kind: "conflict" }> {
  const shown = paths.slice(0, 5).join(", ") + (paths.length > 5 ? ", …" : "");
  return {
    kind: "conflict",
    paths,
    meanwhile: false,
    reason:
      `Your changes for story ${story} add ${shown}, which the user's worktree has as files git ignores: integrating them would ` +
      "overwrite the user's own files. Nothing was merged for you: do the story again without adding those paths (no `git add -f` of ignored files).",
  };
}

/**
 * The loop branch is checked out in the main worktree, but an agent in a lane can still move it (`git update-ref`:
 * worktrees share refs). Moved to no descendant of where the queue left it while the main worktree still holds
 * exactly that tree, it was not the user (a reset moves the tree too, a commit descends): it is put back (compare-
 * and-swap; the commit it pointed at stays in the branch's reflog). Otherwise the head as found is the user's.
 */
async function putBack(q: Git, ref: string, left: string, found: string): Promise<string> {
  if ((await q.run(["merge-base", "--is-ancestor", left, found], { allowFailure: true })).code === 0) return found;
  if ((await q.snapshot()) !== (await q.treeOf(left))) return found;
  await q.runRetryingLocks(["update-ref", "-m", "wt-loop: the loop branch put back where the merge queue left it", ref, left, found]);
  return left;
}
