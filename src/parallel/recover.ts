/**
 * What makes an integration safe against a kill -9 at any moment. Before the loop branch moves, a
 * journal of two refs records where it was and where it goes (`refs/wt-loop/<worktree>-<hash>/integrating-old`
 * and `-new`, one transaction); they are deleted, again in one transaction, only when the integration
 * is verified or fully undone. A runner that finds them after a restart undoes the integration whole:
 * the branch back to `old` (compare-and-swap), the main tree and index back from `new` to `old`. The lane
 * still holds the work (it is closed only after its integration is recorded), so it is integrated again.
 */
import { existsSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Git } from "../checkpoint/git.ts";
import { worktreeKey } from "../checkpoint/user-work.ts";
import { HarnessError } from "../errors.ts";
import { gitsWorkingIn } from "../proc/git-holders.ts";
import { LinkRefused, removeFileSafe } from "../proc/safe-fs.ts";

export interface Journal {
  old: string;
  new: string;
}

const journalRefs = (git: Git) => {
  const key = worktreeKey(git.ctx.cwd);
  return { old: `refs/wt-loop/${key}/integrating-old`, new: `refs/wt-loop/${key}/integrating-new`, kept: `refs/wt-loop/${key}/recovered-` };
};

export async function readJournal(git: Git): Promise<Journal | null> {
  const refs = journalRefs(git);
  const [o, n] = await Promise.all([git.resolve(refs.old), git.resolve(refs.new)]);
  return o && n ? { old: o, new: n } : null;
}

/** The journal and the head of `branchRef`, in one `git for-each-ref`: the merge queue asks both before each lane. */
export async function journalAndHead(git: Git, branchRef: string): Promise<{ journal: Journal | null; head: string | null }> {
  const refs = journalRefs(git);
  const at = new Map<string, string>();
  for (const line of (await git.out(["for-each-ref", "--format=%(objectname) %(refname)", branchRef, refs.old, refs.new])).split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) at.set(line.slice(space + 1), line.slice(0, space));
  }
  const [o, n] = [at.get(refs.old), at.get(refs.new)];
  return { journal: o && n ? { old: o, new: n } : null, head: at.get(branchRef) ?? null };
}

export async function writeJournal(git: Git, j: Journal): Promise<void> {
  const refs = journalRefs(git);
  await git.run(["update-ref", "--stdin"], { input: `start\ncreate ${refs.old} ${j.old}\ncreate ${refs.new} ${j.new}\ncommit\n` });
}

/**
 * Moves the loop branch and the journal's `new` together from `j.new` to `to` (one transaction): what --verify
 * wrote on the integrated tree is committed on top of it, and a kill at any moment still undoes the whole.
 */
export async function advanceJournal(git: Git, branchRef: string, j: Journal, to: string): Promise<Journal> {
  const refs = journalRefs(git);
  await git.run(["update-ref", "-m", "wt-loop: what --verify changed on an integrated tree", "--stdin"], {
    input: `start\nupdate ${branchRef} ${to} ${j.new}\nupdate ${refs.new} ${to} ${j.new}\ncommit\n`,
  });
  return { old: j.old, new: to };
}

export async function clearJournal(git: Git, j: Journal): Promise<void> {
  const refs = journalRefs(git);
  await git.run(["update-ref", "--stdin"], { input: `start\ndelete ${refs.old} ${j.old}\ndelete ${refs.new} ${j.new}\ncommit\n` });
}

export type Recovery =
  /** No integration was under way (or the recorded head is still the branch's). */
  | { kind: "none"; head: string }
  /** The integration after `recordedOld` finished and was verified before the kill: the lane's work is on the branch. */
  | { kind: "finished"; head: string }
  /** A half-done integration was undone: branch and tree are at `head` again; notes say what was kept. */
  | { kind: "undone"; head: string; notes: string[] };

/**
 * After a restart, before the merge queue runs again: finishes undoing an integration a kill cut. `recordedOld`
 * is the loop branch's head the state recorded when the lane's integration began (status `integrating`).
 */
export async function recoverIntegration(git: Git, loopBranch: string, recordedOld: string | null = null): Promise<Recovery> {
  const q = git.uninterruptible();
  const ref = `refs/heads/${loopBranch}`;
  const head = (await q.resolve(ref)) ?? "";
  const j = await readJournal(q);
  if (!j) return recordedOld && head !== recordedOld ? { kind: "finished", head } : { kind: "none", head };
  if (head !== j.old && head !== j.new)
    throw new HarnessError(
      `The loop branch ${loopBranch} is at ${head.slice(0, 12)}, neither before (${j.old.slice(0, 12)}) nor after (${j.new.slice(0, 12)}) ` +
        `the integration a stopped runner left half done: ` +
        `it was moved by something else, and was left as it is. Look at \`git log ${loopBranch}\`, ` +
        `then delete ${journalRefs(q).old} and ${journalRefs(q).new} to go on.`,
    );
  // The killed git may have left the index locked. No git of the loop's runs in the main worktree now; one that
  // does is someone else's (the user's, their editor's), and its lock is its own: left, and the user told.
  const lock = await q.gitPath("index.lock");
  const notes: string[] = [];
  if (existsSync(lock)) {
    const holders = gitsWorkingIn(q.ctx.cwd);
    if (holders === null || holders.length)
      throw new HarnessError(
        `${lock} is there, and ${
          holders?.length ? `a git process (pid ${holders.join(", ")}) is working in ${q.ctx.cwd}` : "wt-loop cannot tell here whether a git process holds it"
        }: ` +
          `wt-loop did not remove it, and the integration a stopped runner left half done waits. ` +
          `When no git runs there any more, start again${holders === null ? ` (after deleting ${lock})` : ""}.`,
      );
    rmSync(lock, { force: true });
    notes.push("removed the index.lock the killed integration left");
  }
  if (head === j.new) await q.runRetryingLocks(["update-ref", "-m", "wt-loop: undo a cut integration", ref, j.old, j.new]);
  notes.push(...(await moveTree(q, j.new, j.old)));
  await clearJournal(q, j);
  return { kind: "undone", head: j.old, notes };
}

/**
 * Brings the main worktree's tree and index from `from` to `to`, whatever point between them a kill
 * left it at: only the paths that differ between the two commits are written. A path whose content is
 * neither version (the user edited it meanwhile, or a write was cut) is kept first: a snapshot of the
 * whole tree under `refs/wt-loop/<worktree>-<hash>/recovered-<time>`, named in the returned notes.
 */
export async function moveTree(git: Git, from: string, to: string): Promise<string[]> {
  const notes: string[] = [];
  const paths = nul((await git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to])).stdout);
  if (paths.length === 0) {
    await git.run(["read-tree", "-m", to]);
    return notes;
  }
  const snap = await git.snapshot(); // the tree as it is now, untracked files included (a private index)
  const [was, goal, now] = await Promise.all([blobs(git, from, paths), blobs(git, to, paths), blobs(git, snap, paths)]);
  const foreign = paths.filter((p) => now.get(p) !== was.get(p) && now.get(p) !== goal.get(p));
  if (foreign.length) {
    const head = (await git.resolve("HEAD")) ?? to;
    const commit = await git.commitTree(snap, [head], `wt-loop: the tree as an undone integration found it (${foreign.length} file(s) changed meanwhile)`);
    const ref = `${journalRefs(git).kept}${Date.now()}`;
    await git.runRetryingLocks(["update-ref", "-m", "wt-loop: kept before undoing an integration", ref, commit, ""]);
    notes.push(`${foreign.join(", ")} held changes of neither version: the whole tree as it was is kept in ${ref} (git restore --source=${ref} -- <path>)`);
  }
  // The index: exactly `to`. --reset keeps each entry whose content `to` has as it is, with the user's
  // --assume-unchanged mark (a plain read-tree builds every entry anew, marks dropped); stat data is refreshed below.
  await git.run(["read-tree", "--reset", to]);
  const present = paths.filter((p) => goal.has(p));
  if (present.length) await git.run(["checkout-index", "-f", "-u", "-z", "--stdin"], { input: present.join("\0") + "\0" });
  for (const p of paths.filter((p) => !goal.has(p))) {
    const file = join(git.ctx.cwd, p);
    // A folder on the way replaced by a link (by an agent): deleting through it would delete a file elsewhere.
    let gone: ReturnType<typeof removeFileSafe>;
    try {
      gone = removeFileSafe(git.ctx.cwd, file);
    } catch (err) {
      if (!(err instanceof LinkRefused)) throw err;
      notes.push(
        `${relative(git.ctx.cwd, err.link)} is a symbolic link: ${p} was not deleted through it (wt-loop never deletes through links it did not make)`,
      );
      continue;
    }
    if (gone === "folder") notes.push(`${p} is a folder now, not the file the integration wrote: it was left as it is, with what it holds`);
    else pruneEmptyDirs(git.ctx.cwd, dirname(file));
  }
  await git.refreshIndex();
  return notes;
}

/** Mode and blob of each of `paths` in `tree` (absent paths are missing from the map). */
async function blobs(git: Git, tree: string, paths: string[]): Promise<Map<string, string>> {
  const out = (await git.run(["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", tree, "--", ...paths])).stdout;
  const m = new Map<string, string>();
  for (const rec of nul(out)) {
    const tab = rec.indexOf("\t");
    const [mode, , oid] = rec.slice(0, tab).split(" ");
    m.set(rec.slice(tab + 1), `${mode} ${oid}`);
  }
  return m;
}

function pruneEmptyDirs(root: string, dir: string): void {
  while (dir.startsWith(root + "/")) {
    try {
      rmdirSync(dir); // fails when not empty: then its parents are not either
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}

const nul = (out: string) => out.split("\0").filter((p) => p !== "");
