/**
 * Everything `start` (and a direct `run`) checks before a loop may begin, in the order a user
 * would want to hear about problems; nothing is written until all of it passes.
 */
import { checkAgent } from "../agents/registry.ts";
import { UserError, warn } from "../errors.ts";
import { loopPaths } from "../state/paths.ts";
import { isRunner } from "../state/pid.ts";
import type { State } from "../state/schema.ts";
import { archiveState, readState, writeState } from "../state/store.ts";
import { ensureExcluded } from "../state/exclude.ts";
import { Git } from "../checkpoint/git.ts";
import { refuseOperationInProgress } from "../checkpoint/strategy.ts";
import type { StorySource } from "../stories/source.ts";
import type { Worktree } from "../worktree.ts";
import type { LoopOptions } from "./options.ts";
import { initialState, makePlan, type Plan } from "./plan.ts";

/** A `starting` state this young may belong to a `run` that is still opening in its new window. */
const STARTING_GRACE_MS = 60_000;

export interface Prepared {
  state: State;
  source: StorySource;
  plan: Plan;
  previous: State | null;
}

export const openSpecOptions = (cwd: string, commandTimeoutSec: number, signal?: AbortSignal) => ({
  cwd,
  timeoutMs: commandTimeoutSec * 1000,
  signal,
  warn,
});

export async function prepareLoop(wt: Worktree, opts: LoopOptions): Promise<Prepared> {
  const previous = await readState(loopPaths(wt.path).state);
  // A dry run touches nothing, so it may preview a loop while another runs or a merge is open.
  if (!opts.dryRun) {
    refuseIfRunning(previous);
    await refuseOperationInProgress(new Git({ cwd: wt.path, timeoutMs: opts.commandTimeout * 1000 }));
  }
  const plan = await makePlan(wt.path, opts, openSpecOptions(wt.path, opts.commandTimeout));
  checkAgent(opts.agent, { agentCmd: opts.agentCmd ?? null }, process.env.PATH, wt.path);
  return { state: initialState(wt, opts, plan), source: plan.source, plan, previous };
}

export function refuseIfRunning(previous: State | null): void {
  if (!previous) return;
  if (previous.status === "running" && isRunner(previous.runner_pid, previous.runner_started))
    throw new UserError(
      `A loop is already running in ${previous.worktree_name} (runner pid ${previous.runner_pid}). ` +
        "Follow it with `wt-loop monitor`, or stop it with `wt-loop stop`.",
    );
  if (previous.completion_pending && isRunner(previous.runner_pid, previous.runner_started))
    throw new UserError(
      `The loop in ${previous.worktree_name} ended ${previous.status} and its completion question is waiting (runner pid ${previous.runner_pid}). ` +
        "Answer it in the loop's window, or with `wt-loop stop` (keep) or `wt-loop stop --cleanup`, then start again.",
    );
  if (previous.status === "starting" && Date.now() - Date.parse(previous.updated_at) < STARTING_GRACE_MS)
    throw new UserError(
      `A loop is being started in ${previous.worktree_name} (started ${previous.updated_at}). ` +
        "Wait for it, follow it with `wt-loop monitor`, or try again in a minute if its window never opened.",
    );
}

/** Archives the previous run's record, then writes the new loop's `starting` state. */
export async function writeStarting(p: Prepared): Promise<string | null> {
  const paths = loopPaths(p.state.worktree_path);
  let note: string | null = null;
  if (p.previous) {
    const dest = await archiveState(paths.state, paths.runs, p.previous);
    note =
      p.previous.status === "running"
        ? `The previous loop's runner (pid ${p.previous.runner_pid}) had died; its record was kept as ${dest}.`
        : `The previous loop's record was kept as ${dest}.`;
  }
  // Excluded before the first file appears, so `git status` never shows the loop's files.
  await ensureExcluded(new Git({ cwd: p.state.worktree_path, timeoutMs: p.state.command_timeout_sec * 1000 }));
  await writeState(paths.state, p.state);
  return note;
}
