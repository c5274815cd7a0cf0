/**
 * The paths an attempt changed since its checkpoint, with how: the Files a view shows for an
 * iteration. Measured from trees (the checkpoint's, and a snapshot of the worktree), so untracked
 * files count as added and nothing in the worktree or the real index is touched.
 */
import { z } from "zod";
import type { Git } from "./git.ts";

export const ChangedFile = z.object({
  path: z.string().describe("the path, relative to the worktree"),
  status: z.enum(["added", "modified", "deleted", "type-changed"]).describe("how it changed (a rename is a deletion and an addition)"),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

const STATUS: Record<string, ChangedFile["status"]> = { A: "added", M: "modified", D: "deleted", T: "type-changed" };

/** The changes from tree-ish `from` to tree-ish `to` (no rename detection: a rename is a delete and an add). */
export async function changedFiles(git: Git, from: string, to: string): Promise<ChangedFile[]> {
  if (from === to) return [];
  const out = (await git.run(["diff-tree", "-r", "--no-renames", "--name-status", "-z", from, to])).stdout;
  const fields = out.split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = STATUS[fields[i]!.charAt(0)];
    if (status) files.push({ path: fields[i + 1]!, status });
  }
  return files;
}
