/**
 * `--parallel` lanes (docs/parallel.md): each running story works in a linked worktree of its own, on a
 * branch made from the loop branch's head, in the repository's common git dir (outside the user's tree).
 * A lane is made from a commit, so it never holds the user's untracked files; the loop's own files are
 * excluded there too (`info/exclude` is shared by every worktree of a repository).
 *
 * Nothing a lane did is dropped unless it is on the loop branch: closing a lane whose work is not
 * integrated first keeps it (its commits, and a snapshot of what it left uncommitted) under
 * `refs/wt-loop/<worktree>-<hash>/lane-<story>-<attempt>`.
 */
import { existsSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { ensureExcluded } from "../checkpoint/exclude.ts";
import { Git } from "../checkpoint/git.ts";
import { errorMessage, HarnessError } from "../errors.ts";
import { CommandError } from "../proc/spawn.ts";
import type { Lane } from "../state/schema.ts";
import { deleteBranch, inRebase, inside, keepUnder, laneLeaf, lanesOnDisk, laneWhere, real, removeLaneWorktree } from "./lane-git.ts";
import type { KeptLane, LanePlan, Lanes } from "./ports.ts";

export interface LanesOptions {
  /** The repository's common git dir, absolute (`Git.commonDir()`). */
  commonDir: string;
  /** The loop branch (`ralph/<name>`, no `refs/heads/`): work already on it needs no keeping. */
  loopBranch: string;
}

type LaneLike = Pick<Lane | LanePlan, "story_id" | "attempt" | "worktree" | "branch" | "base">;

/**
 * Opening, closing and sweeping take turns per repository (every `gitLanes` of it) in what touches git's
 * admin folders: git locks refs and each index, not `.git/worktrees/`. `git worktree add` writes a
 * worktree's admin folder in steps, and another lane's `worktree add`, `list` or `prune` meanwhile reads
 * it half made ("failed to read …/commondir"); two adds of one name pick the same folder. A lane's
 * checkout (its files and its own index) is not in turn: lanes fill their folders at once.
 */
const turns = new Map<string, Promise<unknown>>();
function inTurn<T>(commonDir: string, fn: () => Promise<T>): Promise<T> {
  const run = (turns.get(commonDir) ?? Promise.resolve()).then(fn, fn);
  turns.set(
    commonDir,
    run.catch(() => {}),
  );
  return run;
}

/** `git` is the main worktree's (the loop's): lanes are named after it. */
export function gitLanes(git: Git, opts: LanesOptions): Lanes {
  const where = laneWhere(opts.commonDir, git.ctx.cwd);
  const inLane = (lane: LaneLike) => new Git({ ...git.ctx, cwd: lane.worktree });
  const keptRef = (lane: LaneLike) => `${where.keptPrefix}${laneLeaf(lane.story_id, lane.attempt)}`;

  /**
   * The lane's work as one commit: its branch head, or, when the lane left uncommitted files (or its
   * HEAD somewhere else than its branch), a commit of its whole tree over both. Null when the lane has
   * no branch and no worktree left.
   */
  async function tipOf(lane: LaneLike): Promise<string | null> {
    const q = git.uninterruptible();
    const branchHead = await q.resolve(`refs/heads/${lane.branch}`);
    if (!existsSync(lane.worktree)) return branchHead;
    const lg = inLane(lane).uninterruptible();
    const st = await lg.run(["status", "--porcelain=v2", "--branch", "--untracked-files=all"], { allowFailure: true });
    if (st.code !== 0) return branchHead; // not a worktree any more (half made): its branch is all there is
    if (await neverCheckedOut(lg, lane.worktree)) return branchHead;
    if (await inRebase(lg)) {
      // A replay a kill cut: its half-merged files (conflict markers) are not the lane's work; the branch is.
      await lg.run(["rebase", "--abort"], { allowFailure: true });
      if (!(await inRebase(lg))) return tipOf(lane);
      return branchHead;
    }
    const lines = st.stdout.split("\n");
    const oid = lines.find((l) => l.startsWith("# branch.oid "))?.slice("# branch.oid ".length);
    const head = oid && /^[0-9a-f]{40}/.test(oid) ? oid : branchHead;
    const dirty = lines.some((l) => l !== "" && !l.startsWith("#"));
    if (!head) return null;
    if (!dirty && head === (branchHead ?? head)) return head;
    const parents = [...new Set([head, ...(branchHead ? [branchHead] : [])])];
    return lg.commitTree(await lg.snapshot(), parents, "wt-loop: what the lane left uncommitted when it was closed");
  }

  /** Keeps the lane's work under its ref unless it adds nothing to `base` (or, with `onto`, to that commit). */
  async function keep(lane: LaneLike, onto: string | null): Promise<string | null> {
    const q = git.uninterruptible();
    const tip = await tipOf(lane);
    if (!tip || tip === lane.base || (await q.treeOf(tip)) === (await q.treeOf(lane.base))) return null;
    if (onto && (await adds(q, onto, tip)) === false) return null;
    return keepUnder(q, keptRef(lane), tip);
  }

  /**
   * Makes the lane's branch at its base, then its worktree on it. Not `worktree add -b`: that makes the branch, then
   * reads every worktree and dies on one another process is adding meanwhile ("failed to read …/commondir"), its
   * branch left behind. The add alone makes nothing before that read, so it is asked again (runAcrossWorktrees).
   * No hooks (the user's post-checkout is not the loop's to run): no git of wt-loop's runs any (proc/git-hardening.ts).
   */
  async function addLane(plan: LanePlan): Promise<void> {
    await git.runRetryingLocks(["update-ref", "-m", "wt-loop: lane opened", `refs/heads/${plan.branch}`, plan.base, ""]); // "": must not exist
    await git.runAcrossWorktrees(["worktree", "add", "--quiet", "--no-checkout", plan.worktree, plan.branch]);
  }

  /**
   * Removes the lane's folder; when git cannot (a folder it cannot read: lane-git.ts), says which lane and where its
   * work is. Its branch is left with it (deleted only once the folder is gone): nothing of the lane's is lost.
   */
  async function removeSaying(q: Git, lane: LaneLike, path: string, work: string): Promise<void> {
    try {
      await removeLaneWorktree(q, where, path);
    } catch (err) {
      throw new HarnessError(
        `The lane of story ${lane.story_id} (${path}) could not be removed: ${errorMessage(err)}. ` +
          `Its branch ${lane.branch} is left as it was and ${work}; the next \`wt-loop start\` or \`wt-loop stop\` removes the lane.`,
        { cause: err },
      );
    }
  }

  const close = (lane: LaneLike, how: { integrated: boolean }) => inTurn(opts.commonDir, () => closeNow(lane, how));

  async function closeNow(lane: LaneLike, how: { integrated: boolean }): Promise<string | null> {
    const q = git.uninterruptible(); // a stop must not cut a lane's removal in half
    const kept = how.integrated ? null : await keep(lane, null);
    const work = kept ? `its work is kept in ${kept}` : how.integrated ? "its work is on the loop branch" : "it holds no work of its own";
    await removeSaying(q, lane, lane.worktree, work);
    await deleteBranch(q, where, lane.branch);
    return kept;
  }

  return {
    plan(storyId, attempt, base) {
      const leaf = laneLeaf(storyId, attempt);
      return { story_id: storyId, attempt, base, worktree: join(where.dir, leaf), branch: `${where.branchPrefix}${leaf}` };
    },

    async open(plan) {
      // In turn: what writes git's admin folder of the repository (`.git/worktrees/<lane>`) and the lane's branch.
      // `--no-checkout`: the lane's files are not written here, so the next lane's turn comes without waiting for them.
      await inTurn(opts.commonDir, async () => {
        // Whatever a killed runner left of this lane goes first (its work kept): then it is made whole again.
        if (existsSync(plan.worktree) || (await git.resolve(`refs/heads/${plan.branch}`))) await closeNow(plan, { integrated: false });
        const made = await addLane(plan).then(
          () => true,
          (err) => {
            if (err instanceof CommandError && err.reason === "exit") return false;
            throw err;
          },
        );
        if (made) return;
        // Refused: a lane folder removed by hand whose registration is still there, or an `add` a kill cut after it
        // made the branch. Its leftovers go (nothing of its is work: it never ran), then it is made again.
        await closeNow(plan, { integrated: false });
        await git.run(["worktree", "prune"]);
        await addLane(plan);
      });
      // Beside the other lanes: the checkout writes only the lane's own folder and its own index (git locks that).
      const lg = inLane(plan);
      await lg.locate(true); // its folders pinned before its agent runs (a reused folder: found again)
      await lg.run(["reset", "--hard", "--quiet", "--no-recurse-submodules"]);
      await ensureExcluded(lg);
    },

    async commit(lane, message) {
      const lg = inLane(lane);
      const on = await lg.branch();
      if (on !== lane.branch)
        throw new HarnessError(
          `The lane of story ${lane.story_id} (${lane.worktree}) is on ${on ?? "a detached HEAD"}, not on its branch ${lane.branch}: ` +
            `its work was not committed.`,
        );
      const { head, dirty } = await lg.headAndDirty();
      return dirty ? lg.uninterruptible().commitAll(message) : head;
    },

    close,

    sweep: (recorded) =>
      inTurn(opts.commonDir, async () => {
        const q = git.uninterruptible();
        const loopHead = await q.resolve(`refs/heads/${opts.loopBranch}`);
        const byLeaf = new Map<string, LaneLike>();
        for (const l of recorded) byLeaf.set(laneLeaf(l.story_id, l.attempt), l);
        for (const leaf of await lanesOnDisk(q, where)) {
          if (byLeaf.has(leaf)) continue;
          const m = /^(.*)-(\d+)$/.exec(leaf);
          const branch = `${where.branchPrefix}${leaf}`;
          const head = await q.resolve(`refs/heads/${branch}`);
          // Not in the state: its base is where it left the loop branch.
          const base = head && loopHead ? await q.out(["merge-base", head, loopHead]).catch(() => head) : (head ?? loopHead ?? "");
          byLeaf.set(leaf, { story_id: m?.[1] ?? leaf, attempt: Number(m?.[2] ?? 0), worktree: join(where.dir, leaf), branch, base });
        }
        const notes: string[] = [];
        for (const [leaf, lane] of byLeaf) {
          const kept = lane.base ? await keep(lane, loopHead) : null; // (closeNow's steps, with "integrated" judged by content)
          const work = kept ? `its work not on the loop branch is kept in ${kept}` : "what it holds is on the loop branch (or it holds nothing)";
          await removeSaying(q, lane, join(where.dir, leaf), work);
          // A recorded path elsewhere (a state edited by hand, another repository's) is not the loop's to remove.
          if (real(lane.worktree) !== real(join(where.dir, leaf)) && inside(lane.worktree, where.dir)) await removeLaneWorktree(q, where, lane.worktree);
          if (lane.branch.startsWith(where.branchPrefix)) await deleteBranch(q, where, lane.branch);
          notes.push(
            `the lane of story ${lane.story_id} (attempt ${lane.attempt}) was closed` + (kept ? `; its work not on the loop branch is kept in ${kept}` : ""),
          );
        }
        await q.run(["worktree", "prune"]);
        dropIfEmpty(where.dir);
        return notes;
      }),

    tidy: () =>
      inTurn(opts.commonDir, async () => {
        const q = git.uninterruptible();
        const loopHead = await q.resolve(`refs/heads/${opts.loopBranch}`);
        const refs = (await q.out(["for-each-ref", "--format=%(objectname) %(refname)", where.keptPrefix.replace(/lane-$/, "")])).split("\n");
        const kept: KeptLane[] = [];
        for (const line of refs) {
          const [tip, ref] = line.split(" ");
          if (!tip || !ref?.startsWith(where.keptPrefix)) continue;
          // Deleted only when the loop branch holds its content (a newer git tells): else it is named, never guessed away.
          if (loopHead && (await adds(q, loopHead, tip)) === false) {
            await q.run(["update-ref", "-d", ref, tip], { allowFailure: true });
            continue;
          }
          const m = /^(.*)-(\d+)$/.exec(ref.slice(where.keptPrefix.length));
          kept.push({ ref, story_id: m?.[1] ?? ref, attempt: Number(m?.[2] ?? 0) });
        }
        dropIfEmpty(where.dir); // at the end no lane is open: its folder of lanes goes too
        return kept;
      }),
  };
}

/**
 * A lane added (`--no-checkout`) whose runner was killed before its checkout: no index, no file but `.git`. Its
 * agent never ran there; its tree read as every file deleted, which was kept as "the lane's work".
 */
async function neverCheckedOut(lg: Git, worktree: string): Promise<boolean> {
  if (existsSync(await lg.gitPath("index"))) return false;
  try {
    return readdirSync(worktree).every((name) => name === ".git");
  } catch {
    return false;
  }
}

/** The loop's folder of lanes once no lane is in it (a lane another process opens meanwhile keeps it: not empty). */
function dropIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // absent, or filled meanwhile: nothing to drop
  }
}

/**
 * Whether `tip` brings anything `onto` does not already hold: a merge of it onto `onto` (from their
 * merge base, the lane's base) that leaves `onto`'s tree unchanged adds nothing. A conflict means it
 * does; null when git cannot tell (a git older than 2.38 has no `merge-tree --write-tree`): kept too.
 */
async function adds(git: Git, onto: string, tip: string): Promise<boolean | null> {
  const r = await git.run(["merge-tree", "--write-tree", "--no-messages", onto, tip], { allowFailure: true });
  if (r.code === 1) return true;
  if (r.code !== 0) return null;
  return r.stdout.split("\n")[0]!.trim() !== (await git.treeOf(onto));
}
