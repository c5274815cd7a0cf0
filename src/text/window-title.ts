/**
 * The loop's window title, one builder for every phase (docs/terminals-and-notifications.md). It says
 * "Ralph:" because the contract does: wt-tools finds a loop's terminal window by that prefix. Lanes
 * (`--parallel`) add their count after the spec's form, which the prefix match does not see.
 */
import { plural } from "./format.ts";

export const windowTitle = (worktreeName: string, detail: string, lanes?: number): string =>
  `Ralph: ${worktreeName} [${detail}]${lanes ? ` · ${plural(lanes, "lane")}` : ""}`;
