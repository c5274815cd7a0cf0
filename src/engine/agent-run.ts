/**
 * What every agent run of the loop shares — a story's attempt, the reviewer, the auditor: it works in the
 * worktree with the loop's environment, sandbox, stop signal and run tag (so a kill finds all of it), and
 * while it runs its pid is the one a `stop --force` must reach.
 */
import type { AgentRunOptions } from "../agents/run-agent.ts";
import { runTag } from "../proc/contain.ts";
import { processStartTime } from "../proc/pid.ts";
import type { State } from "../state/schema.ts";
import type { LoopDeps } from "./ports.ts";

export function agentRunOptions(
  state: State,
  deps: LoopDeps,
  run: { logPath: string; timeoutMin: number; onEvent: AgentRunOptions["onEvent"] },
): AgentRunOptions {
  return {
    cwd: state.worktree_path,
    env: deps.env,
    sandbox: deps.sandbox,
    timeoutMs: run.timeoutMin * 60_000,
    signal: deps.signal,
    logPath: run.logPath,
    runTag: deps.runTag ?? runTag(state.worktree_path, state.started_at),
    onEvent: run.onEvent,
    onStart: (pid) => {
      state.agent_pid = pid;
      state.agent_started = processStartTime(pid);
      // Not awaited (the run goes on) and not fatal: the run tag names the agent meanwhile, the next save writes it.
      deps.store.write().catch(() => {});
    },
  };
}
