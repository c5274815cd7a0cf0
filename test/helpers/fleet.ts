/** Several worktrees of one repository with loops in them, for the readers of every loop (list, MCP, status line). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { baseEnv, CLI, fakeAgent } from "./cli.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "./repo.ts";

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
  const proc = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--on-complete", "keep", ...extra], {
    cwd: worktree, env: baseEnv(agent.env), stdout: "ignore", stderr: "pipe", stdin: "ignore",
  });
  const statePath = join(worktree, ".claude/loop-state.json");
  for (let i = 0; i < 600; i++) {
    await Bun.sleep(100);
    if (!existsSync(statePath)) continue;
    const s = JSON.parse(readFileSync(statePath, "utf8"));
    if (s.status === "running" && s.agent_pid) return { proc, state: s, stop: () => stopHard(proc.pid, s.agent_pid) };
  }
  proc.kill("SIGKILL");
  throw new Error(`the loop in ${worktree} never started its agent: ${await new Response(proc.stderr).text()}`);
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
  for (let i = 0; i < 100 && isAlive(runner); i++) await Bun.sleep(50);
}
