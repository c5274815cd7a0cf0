/**
 * The paths an attempt changed since its checkpoint, with how: the Files a view shows for an
 * iteration. Found from git's own records (trees, and the `git status` the measure runs anyway),
 * never by changing the worktree or the real index; untracked files count as added, a rename as a
 * deletion and an addition.
 */
import type { ChangedFile } from "./changed-file.ts";
import type { Git } from "./git.ts";

export type { ChangedFile } from "./changed-file.ts";

const STATUS: Record<string, ChangedFile["status"]> = { A: "added", M: "modified", D: "deleted", T: "type-changed" };

function parseNameStatus(out: string): Map<string, ChangedFile["status"]> {
  const fields = out.split("\0");
  const files = new Map<string, ChangedFile["status"]>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = STATUS[fields[i]!.charAt(0)];
    if (status) files.set(fields[i + 1]!, status);
  }
  return files;
}

const listed = (files: Map<string, ChangedFile["status"]>): ChangedFile[] => [...files].map(([path, status]) => ({ path, status }));

/** From tree-ish `from` to tree-ish `to` (stash checkpoints compare whole-tree snapshots). */
export async function changedFiles(git: Git, from: string, to: string): Promise<ChangedFile[]> {
  return listed(await committedChanges(git, from, to));
}

export interface TreeStatus {
  head: string;
  /** Anything changed in the tree or the index since HEAD, untracked files included. */
  dirty: boolean;
  /** What changed since HEAD. */
  files: Map<string, ChangedFile["status"]>;
  /** Untracked folders that are git repositories of their own (`dir/`): what a checkpoint's `add -A` leaves out (git.ts). */
  nested: string[];
  /**
   * The ignored paths (`--ignored=matching`: an ignored folder is one entry, as `ls-files -o -i --directory` gives
   * it), under the ignore rules in the tree now; relative to the top of the worktree.
   */
  ignored: string[];
}

/**
 * HEAD and the changes since it, from the one `git status` the measure of an attempt runs anyway
 * (its porcelain v2 with NUL ends: paths are never quoted).
 */
export async function treeStatus(git: Git): Promise<TreeStatus> {
  const records = (await git.run(["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignored=matching"])).stdout.split("\0");
  const status: TreeStatus = { head: "", dirty: false, files: new Map(), nested: [], ignored: [] };
  const field = (r: string, skip: number) => r.split(" ").slice(skip).join(" "); // the path may hold spaces
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (r.startsWith("# branch.oid ")) status.head = r.slice("# branch.oid ".length);
    if (!r || r.startsWith("#")) continue;
    if (r.startsWith("! ")) {
      status.ignored.push(r.slice(2));
      continue;
    }
    status.dirty = true;
    const [x, y] = [r[2], r[3]];
    if (r.startsWith("? ")) {
      // With --untracked-files=all only a repository of its own is listed as a folder (as `ls-files -o` lists it).
      if (r.endsWith("/")) status.nested.push(r.slice(2));
      status.files.set(r.slice(2), "added");
    } else if (r.startsWith("u ")) status.files.set(field(r, 10), "modified");
    else if (r.startsWith("1 ")) {
      const path = field(r, 8);
      if (x === "A") {
        if (y !== "D") status.files.set(path, "added"); // added, then deleted from the tree: nothing changed
      } else status.files.set(path, x === "D" || y === "D" ? "deleted" : x === "T" || y === "T" ? "type-changed" : "modified");
    } else if (r.startsWith("2 ")) {
      // A rename or copy staged: the new path is added, a renamed one's old path deleted.
      const orig = records[++i] ?? "";
      if (y !== "D") status.files.set(field(r, 9), "added");
      if (x === "R") status.files.set(orig, "deleted");
    }
  }
  return status;
}

/** Changes `first`, then `then`: what changed from before the first to after the second. */
export function composeChanges(first: Map<string, ChangedFile["status"]>, then: Map<string, ChangedFile["status"]>): ChangedFile[] {
  const all = new Map(first);
  for (const [path, b] of then) {
    const a = all.get(path);
    if (!a) all.set(path, b);
    else if (a === "added") b === "deleted" ? all.delete(path) : all.set(path, "added");
    else if (a === "deleted")
      all.set(path, "modified"); // gone, then back
    else all.set(path, b === "deleted" ? "deleted" : a === "type-changed" || b === "type-changed" ? "type-changed" : "modified");
  }
  return listed(all);
}

/** From tree-ish `from` to tree-ish `to`, as a map (no rename detection). */
export async function committedChanges(git: Git, from: string, to: string): Promise<Map<string, ChangedFile["status"]>> {
  if (from === to) return new Map();
  return parseNameStatus((await git.run(["diff-tree", "-r", "--no-renames", "--name-status", "-z", from, to])).stdout);
}
