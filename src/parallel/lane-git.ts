/**
 * The git steps under lanes.ts: where this loop's lanes live, which worktrees and branches git lists as
 * ours, removing one, and keeping a lane's work under a ref. Only paths under the loop's own lanes folder
 * (in the common git dir) are ever removed; anything of the user's is out of reach by construction.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { realOrSame } from "../proc/real-path.ts";
import { join, relative, isAbsolute } from "node:path";
import { HarnessError } from "../errors.ts";
import { Git } from "../checkpoint/git.ts";
import { worktreeKey } from "../checkpoint/user-work.ts";
import { parseWorktreeList, type ListedWorktree } from "../checkpoint/worktree-list.ts";

export interface LaneWhere {
  /** `<common git dir>/wt-loop/lanes/<worktree>-<hash>`: every lane of this loop is a folder in it. */
  dir: string;
  /** `wt-loop/lane/<worktree>-<hash>/`: every lane branch of this loop starts so. */
  branchPrefix: string;
  /** `refs/wt-loop/<worktree>-<hash>/lane-`: where work not integrated is kept. */
  keptPrefix: string;
}

export function laneWhere(commonDir: string, worktree: string): LaneWhere {
  const key = worktreeKey(worktree);
  return { dir: join(commonDir, "wt-loop", "lanes", key), branchPrefix: `wt-loop/lane/${key}/`, keptPrefix: `refs/wt-loop/${key}/lane-` };
}

/** A story id as a path and ref component: `2.1` stays, anything git or a file system would refuse becomes `-`. */
export const laneLeaf = (storyId: string, attempt: number) => `${storyId.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "story"}-${attempt}`;

export const real = realOrSame;

export function inside(path: string, dir: string): boolean {
  const r = relative(real(dir), real(path));
  return r !== "" && !r.startsWith("..") && !isAbsolute(r);
}

/** `git worktree list --porcelain`, parsed. */
export const listWorktrees = async (git: Git): Promise<ListedWorktree[]> =>
  parseWorktreeList((await git.runAcrossWorktrees(["worktree", "list", "--porcelain", "-z"])).stdout);

/**
 * Removes the lane worktree at `path` (registered or not, present or not): `worktree remove --force`
 * when git has it and it exists, `worktree prune` when its folder is gone, the bare folder when git
 * never registered it (a kill during `worktree add`). Refuses any path outside the lanes folder.
 */
export async function removeLaneWorktree(git: Git, where: LaneWhere, path: string): Promise<void> {
  if (!inside(path, where.dir)) throw new HarnessError(`Refused to remove ${path}: it is not under the loop's lanes folder ${where.dir}.`);
  const listed = (await listWorktrees(git)).some((w) => real(w.path) === real(path));
  // `worktree remove` reads every worktree first: one another process is adding meanwhile is waited for.
  if (listed && existsSync(path))
    await git.runAcrossWorktrees(["worktree", "remove", "--force", "--force", path]); // twice: a locked lane too
  else if (listed) await git.run(["worktree", "prune"]);
  if (existsSync(path)) rmSync(path, { recursive: true, force: true });
}

/**
 * Deletes a lane branch by compare-and-swap (a branch moved meanwhile is not this call's to delete).
 * Only a branch under the loop's `wt-loop/lane/<worktree>-<hash>/`: a state edited by hand names no other.
 */
export async function deleteBranch(git: Git, where: LaneWhere, branch: string): Promise<void> {
  if (!branch.startsWith(where.branchPrefix))
    throw new HarnessError(`Refused to delete the branch ${branch}: it is not one of the loop's lane branches (${where.branchPrefix}…).`);
  const sha = await git.resolve(`refs/heads/${branch}`);
  if (sha) await git.runRetryingLocks(["update-ref", "-m", "wt-loop: lane closed", "-d", `refs/heads/${branch}`, sha]);
}

/**
 * Writes `sha` under `name`, or `name-2`, `name-3`… when `name` already holds other work (never
 * overwritten): returns the ref that holds it.
 */
export async function keepUnder(git: Git, name: string, sha: string): Promise<string> {
  for (let n = 1; ; n++) {
    const ref = n === 1 ? name : `${name}-${n}`;
    const at = await git.resolve(ref);
    if (at === sha) return ref;
    if (at) continue;
    await git.runRetryingLocks(["update-ref", "-m", "wt-loop: lane work kept", ref, sha, ""]); // "": must not exist
    return ref;
  }
}

/** The lane leaves (`<story>-<attempt>`) git or the file system has for this loop: branches, worktrees, stray folders. */
export async function lanesOnDisk(git: Git, where: LaneWhere): Promise<Set<string>> {
  const leaves = new Set<string>();
  const refs = (await git.out(["for-each-ref", "--format=%(refname)", `refs/heads/${where.branchPrefix}`])).split("\n");
  for (const r of refs) if (r) leaves.add(r.slice(`refs/heads/${where.branchPrefix}`.length));
  for (const w of await listWorktrees(git)) {
    if (w.branch?.startsWith(`refs/heads/${where.branchPrefix}`)) leaves.add(w.branch.slice(`refs/heads/${where.branchPrefix}`.length));
    else if (inside(w.path, where.dir)) leaves.add(relative(real(where.dir), real(w.path)));
  }
  if (existsSync(where.dir)) for (const d of readdirSync(where.dir)) leaves.add(d);
  return leaves;
}

/** Whether the lane is in the middle of a replay (a rebase a kill cut). */
export async function inRebase(lg: Git): Promise<boolean> {
  return existsSync(await lg.gitPath("rebase-merge")) || existsSync(await lg.gitPath("rebase-apply"));
}
