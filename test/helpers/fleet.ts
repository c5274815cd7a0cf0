/** Several worktrees of one repository with loops in them, for the readers of every loop (list, MCP, status line). */
import { join } from "node:path";
import { fakeAgent, spawnWtLoop } from "./cli.ts";
import { readState } from "./fixtures.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "./repo.ts";
import { waitFor, waitGone } from "./wait.ts";

/** A repository (worktree `main`) with linked worktrees named `names`, each on its own branch, beside it. */
export function repoWithWorktrees(names: string[]): { main: string; wt: Record<string, string> } {
  const main = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const wt: Record<string, string> = {};
  for (const n of names) {
    wt[n] = join(main, "..", n);
    git(main, "worktree", "add", "-q", "-b", n, wt[n]);
  }
  return { main, wt };
}

/** Starts `wt-loop start --terminal inline` in the background with an agent that hangs on story 1; resolves once it is running. */
export async function startHangingLoop(worktree: string, extra: string[] = []) {
  const agent = fakeAgent([{ hangSec: 300 }], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", ...extra], { cwd: worktree, env: agent.env, stdout: "ignore" });
  try {
    const s = await waitFor(
      `the loop in ${worktree} to start its agent`,
      () => {
        const s = readState(worktree);
        return s.status === "running" && s.agent_pid && s;
      },
      60_000,
      { whileRunning: proc },
    );
    return { proc, state: s, stop: () => stopHard(proc.pid, s.agent_pid) };
  } catch (e) {
    proc.kill("SIGKILL");
    throw new Error(`${(e as Error).message}; its stderr: ${await new Response(proc.stderr).text()}`);
  }
}

/** Kills a runner and its agent's group, as a closed window or `kill -9` would (and --no-orphans does for the agent). */
export async function stopHard(runner: number, agentGroup: number | null) {
  for (const pid of [runner, ...(agentGroup ? [-agentGroup] : [])]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await waitGone("the killed runner", runner, 5000);
}
