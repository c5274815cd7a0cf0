/**
 * The loop's window title, one builder for every phase (docs/terminals-and-notifications.md). It says
 * "Ralph:" because the contract does: wt-tools finds a loop's terminal window by that prefix.
 */
export const windowTitle = (worktreeName: string, detail: string): string => `Ralph: ${worktreeName} [${detail}]`;
