/**
 * What every agent run of the loop shares — a story's attempt, the reviewer, the auditor: it works where its site
 * says (the loop's worktree, or a lane's) with the loop's environment, sandbox, stop signal and run tag (so a kill
 * finds all of it), and while it runs its pid is recorded where its site says, the one a `stop --force` must reach.
 */
import type { AgentRunOptions } from "../agents/run-agent.ts";
import { runTag } from "../proc/contain.ts";
import { processStartTime } from "../proc/pid.ts";
import type { State } from "../state/schema.ts";
import type { LoopDeps } from "./ports.ts";

/** The running agent's pid and start time, where `stop --force` and a restart find them: the state's, or its lane's. */
export type AgentSlot = { agent_pid: number | null; agent_started?: string | null };

/** The loop's settings an agent run reads (never changes). */
type Settings = Readonly<
  Pick<
    State,
    | "task"
    | "worktree_path"
    | "worktree_name"
    | "started_at"
    | "done_criteria"
    | "planned_stories"
    | "max_retries"
    | "max_iterations"
    | "iteration_timeout_min"
    | "max_wait_hours"
    | "verify"
    | "verify_timeout_min"
    | "review"
    | "review_model"
    | "review_cmd"
    | "review_timeout_min"
    | "model"
    | "escalate"
    | "agent"
    | "agent_cmd"
  >
>;

/**
 * The loop as an agent run sees it: its settings, and the three things every run shares with the others, one
 * after another or in lanes — the user's notes (taken by the next prompt), the wait for the agent's service, and
 * the tree held while a reviewer runs. Nothing else of the loop's state: not its iteration, its worktree or its
 * agent's pid, which are the site's.
 */
export type LoopView = Settings & Pick<State, "notes" | "waiting" | "held">;

/** Where an agent run of the loop happens. */
export interface RunSite {
  loop: LoopView;
  /** The worktree it works in: the loop's, or a lane's. */
  worktree: string;
  /** The iteration it belongs to (its logs are that iteration's). */
  iteration: number;
  agent: AgentSlot;
}

/** The loop's own worktree, at iteration `n`: the agent's pid is the state's. */
export const inWorktree = (state: State, iteration: number): RunSite => ({ loop: state, worktree: state.worktree_path, iteration, agent: state });

/** The loop's run tag, unless the deps carry a lane's. */
export const tagOf = (site: RunSite, deps: Pick<LoopDeps, "runTag">) => deps.runTag ?? runTag(site.loop.worktree_path, site.loop.started_at);

export function agentRunOptions(
  site: RunSite,
  deps: LoopDeps,
  run: { logPath: string; timeoutMin: number; onEvent: AgentRunOptions["onEvent"] },
): AgentRunOptions {
  return {
    cwd: site.worktree,
    env: deps.env,
    sandbox: deps.sandbox,
    timeoutMs: run.timeoutMin * 60_000,
    signal: deps.signal,
    logPath: run.logPath,
    runTag: tagOf(site, deps),
    onEvent: run.onEvent,
    onStart: (pid) => {
      site.agent.agent_pid = pid;
      site.agent.agent_started = processStartTime(pid);
      // Not awaited (the run goes on) and not fatal: the run tag names the agent meanwhile, the next save writes it.
      // Not forced to the disk (record/store.ts): after a power cut the agent is dead too.
      deps.store.write("light").catch(() => {});
    },
  };
}

/** Its processes are all gone once the run returns or throws: no pid is left for a stop to reach. */
export function agentGone(agent: AgentSlot): void {
  agent.agent_pid = null;
  agent.agent_started = null;
}
