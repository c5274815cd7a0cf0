/**
 * The loop owns its branch, and only it. Before an attempt the refs are recorded; after it, HEAD
 * must still be where the loop left it (on the loop's branch, or the user's branch in stash mode)
 * with the checkpoint as an ancestor (no history rewritten), and no other local branch may have
 * moved. A revert puts them back: a branch the agent moved is reset to the commit it had, by a
 * compare-and-swap (`update-ref <ref> <old> <new>`), so a move made meanwhile by someone else is
 * never undone; the agent's commits are named in the reason (and stay in the branch's reflog).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { realOrSame as real } from "../proc/real-path.ts";
import type { Git } from "./git.ts";
import { readBranchFiles, type RefEntry } from "./ref-files.ts";
import { stashEntries, storeStash } from "./stash-ref.ts";

export interface RefsAt {
  head: string;
  /** `refs/heads/…` HEAD points to, null when detached. */
  symbolic: string | null;
  heads: Map<string, string>;
  /** Branches checked out in the repository's other worktrees at that moment. */
  elsewhere: Set<string>;
  /** The stash entries that are not a loop's own (`ralph:…` checkpoints come and go), by commit → subject. */
  stashes: Map<string, string>;
}

/**
 * The user's stash entries: `refs/stash` is shared by every worktree, and an agent's `git stash` or `stash clear`
 * reaches them. The loop's own (`ralph:…`) come and go; the listing is stash-ref.ts's, read again only when it changed.
 */
async function userStashes(git: Git): Promise<Map<string, string>> {
  return new Map((await stashEntries(git)).filter((e) => !/^On [^:]*: ralph:/.test(e.subject)).map((e) => [e.sha, e.subject]));
}

/** Where `--parallel` lanes' branches live (parallel/lane-git.ts names them): `wt-loop/lane/<worktree>-<hash>/<story>-<attempt>`. */
export const LANE_BRANCHES = "refs/heads/wt-loop/lane/";

export async function readRefs(git: Git): Promise<RefsAt> {
  const heads = new Map<string, string>();
  const elsewhere = new Set<string>();
  let symbolic: string | null = null;
  // The branches from git's files (ref-files.ts), or else one git call; the stash list (a git process when it
  // changed: after each of the loop's own stores and drops) is read beside it.
  const dirs = await git.locate();
  const [listed, stashes] = await Promise.all([(dirs && readBranchFiles(dirs)) ?? forEachRef(git), userStashes(git)]);
  for (const { ref, sha, current, elsewhere: away } of listed) {
    // `--parallel`: the other lanes' branches are the loop's own, moved and deleted by it while an agent works
    // (a lane is rebased with its HEAD detached, then removed): never the agent's doing, never put back.
    if (ref.startsWith(LANE_BRANCHES) && !current) continue;
    heads.set(ref, sha);
    if (current) symbolic = ref;
    else if (away) elsewhere.add(ref);
  }
  const head = symbolic ? heads.get(symbolic)! : ((await git.resolve("HEAD")) ?? "");
  return { head, symbolic, heads, elsewhere, stashes };
}

/** The branches as git lists them: `%(HEAD)` marks the one this worktree is on, `%(worktreepath)` where each is checked out. */
export async function forEachRef(git: Git): Promise<RefEntry[]> {
  const here = real(git.ctx.cwd);
  // untrimmed: the mark may be a space
  const out = (await git.runAcrossWorktrees(["for-each-ref", "--format=%(HEAD)%(objectname) %(refname) %(worktreepath)", "refs/heads"])).stdout;
  const entries: RefEntry[] = [];
  for (const line of out.split("\n")) {
    if (!line) continue;
    const [sha, ref, ...where] = line.slice(1).split(" ");
    if (!sha || !ref) continue;
    const current = line[0] === "*";
    entries.push({ ref, sha, current, elsewhere: !current && where.length > 0 && where.join(" ") !== "" && real(where.join(" ")) !== here });
  }
  return entries;
}

const short = (ref: string | null) => (ref ? ref.replace(/^refs\/heads\//, "") : "a detached HEAD");

/**
 * What the agent did to refs it must not touch, as a reason for the next attempt (null when
 * nothing), and where HEAD is now (read on the way: one git process less for the caller).
 */
export async function refsViolation(git: Git, at: RefsAt, checkpoint: string): Promise<{ violation: string | null; head: string; now: RefsAt }> {
  const now = await readRefs(git);
  return { violation: await describeViolation(git, at, now, checkpoint), head: now.head, now };
}

/** Whether HEAD, the branches and the user's stash entries are as `a` recorded them (which worktree has what aside). */
export const sameRefs = (a: RefsAt, b: RefsAt) =>
  a.head === b.head &&
  a.symbolic === b.symbolic &&
  a.heads.size === b.heads.size &&
  [...a.heads].every(([r, s]) => b.heads.get(r) === s) &&
  a.stashes.size === b.stashes.size &&
  [...a.stashes.keys()].every((s) => b.stashes.has(s));

async function describeViolation(git: Git, at: RefsAt, now: RefsAt, checkpoint: string): Promise<string | null> {
  const problems: string[] = [];
  // HEAD resolving to nothing: its branch was deleted under it (under --parallel, maybe by another lane's agent).
  if (now.symbolic !== at.symbolic && at.symbolic && !now.head) problems.push(`the branch ${short(at.symbolic)} was deleted while HEAD was on it`);
  else if (now.symbolic !== at.symbolic) problems.push(`HEAD was switched from ${short(at.symbolic)} to ${short(now.symbolic)}`);
  else if (now.head !== checkpoint) {
    const ancestor = await git.run(["merge-base", "--is-ancestor", checkpoint, now.head], { allowFailure: true });
    if (ancestor.code !== 0) problems.push(`the history of ${short(at.symbolic)} was rewritten (the checkpoint ${checkpoint.slice(0, 12)} is no longer in it)`);
  }
  for (const [ref, sha] of at.heads) {
    if (ref === at.symbolic || at.elsewhere.has(ref) || now.elsewhere.has(ref)) continue;
    const moved = now.heads.get(ref);
    if (moved !== sha) problems.push(moved ? `the branch ${short(ref)} was moved to ${moved.slice(0, 12)}` : `the branch ${short(ref)} was deleted`);
  }
  const dropped = [...at.stashes.keys()].filter((sha) => !now.stashes.has(sha));
  const added = [...now.stashes.keys()].filter((sha) => !at.stashes.has(sha));
  if (dropped.length) problems.push(`${dropped.length} stash entr${dropped.length === 1 ? "y was" : "ies were"} dropped`);
  if (added.length) problems.push(`the work in the tree was stashed (${added.map((s) => s.slice(0, 12)).join(", ")})`);
  if (!problems.length) return null;
  return (
    `Your attempt was not accepted because ${problems.join("; ")}. Work only on ${short(at.symbolic)} ` +
    `(the loop's checkout): do not switch branches, commit elsewhere, rewrite history, or use git stash`
  );
}

/**
 * Puts every branch recorded in `at` back (the loop's own to `checkpoint`) and HEAD onto the
 * loop's branch; returns notes naming the commits that were taken off a branch.
 */
export async function restoreRefs(git: Git, at: RefsAt, checkpoint: string): Promise<{ notes: string[]; stray: [string, string][] }> {
  const now = await readRefs(git);
  const notes: string[] = [];
  const stray: [string, string][] = [];
  for (const [ref, sha] of at.heads) {
    if (ref !== at.symbolic && (at.elsewhere.has(ref) || now.elsewhere.has(ref))) continue;
    const target = ref === at.symbolic ? checkpoint : sha;
    // A lane's own branch is read only while HEAD is on it (readRefs): an agent that switched away left it unread.
    const cur = now.heads.get(ref) ?? (ref === at.symbolic ? ((await git.resolve(ref)) ?? undefined) : undefined);
    if (cur === target) continue;
    // Compare-and-swap: only undo what is still there; "" = the ref must not exist (it was deleted).
    await git.runRetryingLocks(["update-ref", "-m", "wt-loop: revert the agent's attempt", ref, target, cur ?? ""]);
    if (cur && ref !== at.symbolic) stray.push([target, cur]);
    if (cur && ref !== at.symbolic) notes.push(`${short(ref)} was at ${cur.slice(0, 12)} (the agent's commit, kept in \`git reflog ${short(ref)}\`)`);
  }
  // Stash entries the agent dropped are stored again (the commits still exist); its own stay, named.
  const stashesNow = await userStashes(git);
  for (const [sha, subject] of at.stashes) {
    if (stashesNow.has(sha)) continue;
    await storeStash(git, sha, subject);
    notes.push(`the stash entry ${sha.slice(0, 12)} ("${subject}") the agent dropped was put back`);
  }
  for (const sha of stashesNow.keys()) if (!at.stashes.has(sha)) notes.push(`the agent's stash entry ${sha.slice(0, 12)} was left in \`git stash list\``);
  if (at.symbolic) {
    if (!at.heads.has(at.symbolic)) await git.runRetryingLocks(["update-ref", at.symbolic, checkpoint, ""]);
    // HEAD still on its branch (the agent's process group is gone: nothing of its moves it now) needs no rewrite.
    if (now.symbolic !== at.symbolic) await git.run(["symbolic-ref", "HEAD", at.symbolic]);
  } else {
    await git.runRetryingLocks(["update-ref", "--no-deref", "HEAD", checkpoint]);
  }
  return { notes, stray };
}

/**
 * An agent that committed an ignored file of the user's on another branch (`add -A` after switching
 * to a branch whose .gitignore does not ignore it) had git delete it on the way back. Such files are
 * in no checkpoint (ignored files never are), so they are brought back from the agent's commit.
 */
export async function recoverIgnored(git: Git, stray: [string, string][]): Promise<string[]> {
  const back: string[] = [];
  for (const [base, commit] of stray) {
    const added = (await git.run(["diff-tree", "-r", "-z", "--name-only", "--diff-filter=A", base, commit])).stdout.split("\0").filter(Boolean);
    const lost: string[] = [];
    for (const p of added) {
      if (existsSync(join(git.ctx.cwd, p))) continue;
      if ((await git.run(["check-ignore", "-q", "--no-index", "--", p], { allowFailure: true })).code === 0) lost.push(p);
    }
    if (!lost.length) continue;
    // A private index: the files come back into the tree, the real index is not touched.
    await git.withTempIndex((env) => git.run(["checkout", commit, "--", ...lost], { env }), { empty: true });
    back.push(...lost);
  }
  return back;
}
