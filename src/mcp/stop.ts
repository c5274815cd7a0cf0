/**
 * Stopping a loop for the MCP server: the stop protocol of control/stop-loop.ts (signal, wait, force,
 * answering the completion question, finishing a dead runner's completion), as `wt-loop stop` runs
 * it, its lines collected instead of printed: the server's stdout is the protocol's channel.
 */
import { ExitCode, HarnessError, UserError } from "../errors.ts";
import type { Target } from "../fleet/target.ts";
import { stopLoop } from "../control/stop-loop.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { CommandError } from "../proc/spawn.ts";

/** Well under the minutes MCP clients wait for a tool. */
const WAIT_SEC = 50;

/** `wt-loop stop [--force]` in the worktree `t`: its exit code and what it said. */
export async function stopTool(t: Target, force: boolean): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  try {
    const path = loopPaths(t.path).state;
    const state = await readState(path);
    if (!state) throw new UserError(`No loop has run in ${t.name} yet (no ${path}). Start one with \`wt-loop start\`.`);
    await stopLoop(path, state, { force, waitSec: WAIT_SEC, answer: "keep" }, (line) => lines.push(line));
    return { code: ExitCode.done, output: lines.join("\n") };
  } catch (err) {
    // What the command prints and exits with for these (commands/args/args.ts action); anything else is a bug, thrown.
    if (!(err instanceof UserError || err instanceof CommandError || err instanceof HarnessError)) throw err;
    lines.push(err.message);
    return { code: err instanceof UserError ? err.exitCode : ExitCode.usage, output: lines.join("\n") };
  }
}
