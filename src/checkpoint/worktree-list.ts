/** `git worktree list --porcelain -z`, parsed once for every reader (the fleet's list, the lanes of --parallel). */

export interface ListedWorktree {
  path: string;
  head: string | null;
  /** `refs/heads/…`, null when detached. */
  branch: string | null;
  /** The main entry of a bare repository (no tree to work in). */
  bare: boolean;
}

export function parseWorktreeList(out: string): ListedWorktree[] {
  const list: ListedWorktree[] = [];
  // Records end with an empty field; every field ends with NUL (paths may hold any character but NUL).
  let cur: ListedWorktree | null = null;
  for (const field of out.split("\0")) {
    if (field === "") cur = null;
    else if (field.startsWith("worktree ")) list.push((cur = { path: field.slice("worktree ".length), head: null, branch: null, bare: false }));
    else if (cur && field.startsWith("HEAD ")) cur.head = field.slice("HEAD ".length);
    else if (cur && field.startsWith("branch ")) cur.branch = field.slice("branch ".length);
    else if (cur && field === "bare") cur.bare = true;
  }
  return list;
}
