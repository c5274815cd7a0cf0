/**
 * One path an attempt changed, as the event log records it (checkpoint/changed-files.ts finds them).
 * Its own file: `stop` finds changed files without loading zod (docs/performance.md).
 */
import { z } from "zod";
import { described } from "../state/described.ts";

export const ChangedFile = z.object({
  path: described(z.string(), "the path, relative to the worktree"),
  status: described(z.enum(["added", "modified", "deleted", "type-changed"]), "how it changed (a rename is a deletion and an addition)"),
});
export type ChangedFile = z.infer<typeof ChangedFile>;
