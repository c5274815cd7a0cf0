/**
 * Stopping a loop for the MCP server: `wt-loop stop` itself, run in that worktree, so that the stop
 * protocol (signal, wait, force, answering the completion question) has one implementation.
 */
import { exec } from "../proc/spawn.ts";
import { selfArgv } from "../self.ts";

/** Well under the minutes MCP clients wait for a tool. */
const WAIT_SEC = 50;

export async function stopLoop(worktree: string, force: boolean): Promise<{ code: number; output: string }> {
  const argv = [...selfArgv(), "stop", ...(force ? ["--force"] : ["--wait", String(WAIT_SEC)])];
  const r = await exec(argv, { cwd: worktree, timeoutMs: (WAIT_SEC + 30) * 1000, allowFailure: true });
  return { code: r.code, output: [r.stdout, r.stderr].filter(Boolean).join("\n") };
}
