/**
 * One path an attempt changed, as the event log records it (checkpoint/changed-files.ts finds them).
 * Its own file: `stop` finds changed files without loading zod (docs/performance.md).
 */
import { z } from "zod";

export const ChangedFile = z.object({
  path: z.string().describe("the path, relative to the worktree"),
  status: z.enum(["added", "modified", "deleted", "type-changed"]).describe("how it changed (a rename is a deletion and an addition)"),
});
export type ChangedFile = z.infer<typeof ChangedFile>;
