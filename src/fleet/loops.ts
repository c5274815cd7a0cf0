/**
 * Every loop of a repository at a glance: its worktrees (one `git worktree list`) and each one's
 * state file (one read each). What `list`, the MCP server and other readers show; its JSON shape
 * (`WorktreeLoop`, fleet/loop-schema.ts) is documented in docs/integrations.md and is the `list --json` /
 * `list_loops` output.
 */
import { realOrSame } from "../proc/real-path.ts";
import { basename, sep } from "node:path";
import { errorMessage } from "../errors.ts";
import { gitWorktrees, type GitWorktree } from "./git-worktrees.ts";
import { loopPaths } from "../state/paths.ts";
import { hasOwnRunner } from "../proc/pid.ts";
import { isFinal, namesLiveRunner } from "../state/final.ts";
import type { State } from "../state/schema.ts";
import type { LoopSummary, WorktreeLoop } from "./loop-schema.ts";
import { readState } from "../state/store.ts";
import { runTimeMs } from "../state/run-time.ts";

export type { LoopSummary, WorktreeLoop } from "./loop-schema.ts";
export { gitWorktrees } from "./git-worktrees.ts";
import { spent } from "../record/budget.ts";
import { sandboxLabel } from "../record/sandbox-label.ts";

export function summarize(s: State, now = Date.now()): LoopSummary {
  const alive = hasOwnRunner(s);
  return {
    status: s.status,
    waiting: !alive ? null : isFinal(s.status) && s.completion === null && s.checkpoint_sha !== null ? "question" : s.waiting ? "agent" : null,
    waiting_until: alive && s.waiting ? s.waiting.until : null,
    story: s.current_story,
    stories_completed: s.stories_completed,
    stories_total: s.stories_total,
    iteration: s.current_iteration,
    max_iterations: s.max_iterations,
    started_at: s.started_at,
    ended_at: s.ended_at,
    elapsed_ms: runTimeMs(s, now),
    pause_requested: alive && s.pause_requested,
    total_tokens: s.total_tokens,
    total_cost_usd: s.total_cost_usd,
    runner_pid: s.runner_pid,
    runner_alive: alive,
    agent: s.agent,
    change: s.change,
    reason: s.reason,
    error: s.error,
    stop_reason: s.stop_reason ?? null,
    sandbox: sandboxLabel(s),
    budget: s.max_cost_usd || s.max_tokens ? { ...spent(s), max_cost_usd: s.max_cost_usd ?? null, max_tokens: s.max_tokens ?? null } : null,
    lanes: s.lanes.map(({ story_id, story_title, iteration, attempt, status, agent_pid, started }) => ({
      story_id,
      story_title,
      iteration,
      attempt,
      status,
      agent_pid,
      started,
    })),
  };
}

/** One worktree's loop; a dead runner's `running` state is corrected to `stopped`, as `status` does. */
export async function loopOf(wt: GitWorktree, current: boolean): Promise<WorktreeLoop> {
  const entry: WorktreeLoop = { worktree: wt.path, name: basename(wt.path), branch: wt.branch, head: wt.head, current, loop: null, note: null, problem: null };
  const path = loopPaths(wt.path).state;
  try {
    const state = await readState(path);
    if (!state) return entry;
    const pid = state.runner_pid;
    // The process checks load only for a state whose runner could have died (start-up), as in `status`.
    entry.note = namesLiveRunner(state) ? await (await import("../control/liveness.ts")).correctDeadRunner(path, state) : null;
    entry.loop = summarize(state);
    if (entry.note) entry.loop.runner_pid = pid; // show which runner died
  } catch (err) {
    entry.problem = errorMessage(err);
  }
  return entry;
}

/** Every worktree of the repository containing `cwd`, with its loop. */
export async function listLoops(cwd = process.cwd()): Promise<WorktreeLoop[]> {
  const wts = (await gitWorktrees(cwd)).filter((w) => !isLane(w));
  const here = currentOf(
    cwd,
    wts.map((w) => w.path),
  );
  return Promise.all(wts.map((w) => loopOf(w, w.path === here)));
}

/**
 * A `--parallel` lane: a linked worktree a loop made for one story (docs/parallel.md), under the common git
 * dir on a `wt-loop/lane/…` branch. It is that loop's, shown in its row, not a worktree of its own.
 */
export const isLane = (w: GitWorktree) => w.branch?.startsWith("wt-loop/lane/") === true || w.path.includes(`${sep}wt-loop${sep}lanes${sep}`);

/** The worktree containing `cwd`: the longest worktree path it lies in (worktrees may nest). */
export function currentOf(cwd: string, paths: string[]): string | null {
  const real = realOrSame(cwd);
  const inside = paths.filter((p) => real === p || real.startsWith(p.endsWith(sep) ? p : p + sep));
  return inside.sort((a, b) => b.length - a.length)[0] ?? null;
}
