/**
 * Agent unavailable ≠ attempt failed (docs/agents.md). A run the agent's service refused — a usage or rate
 * limit, overload, the network, a 5xx — is not an attempt and not a no-progress iteration: its partial
 * changes are reverted and the same attempt is made again after a wait, until the reset time the
 * agent gave (plus a margin) or else an exponential backoff, within `--max-wait` hours in all.
 * Refused credentials (`auth`) are never waited on: the loop ends stuck with the agent's login advice.
 */
import { loopRoot, renameSafe } from "../../proc/safe-fs.ts";
import type { AgentRun } from "../../agents/run-agent.ts";
import type { UnavailableEvent } from "../../agents/stream.ts";
import { sleepUntil } from "../../proc/timer.ts";
import { addTokens, ZERO_TOKENS, type Iteration, type State, type Tokens } from "../../state/schema.ts";
import { clockTime, formatDuration } from "../../text/format.ts";
import type { LoopDeps } from "../ports.ts";
import { windowTitle } from "../../text/window-title.ts";

/** Multiplies every backoff and margin (not a reset time the agent gave): tests set it small. */
export const WAIT_SCALE_VAR = "WT_LOOP_WAIT_SCALE";
export const FIRST_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
/** After the reset time the agent gave: clocks differ, and a limit is not always lifted to the second. */
export const RESET_MARGIN_MS = 15_000;

export function waitScale(env: Record<string, string | undefined>): number {
  const v = Number(env[WAIT_SCALE_VAR]);
  return Number.isFinite(v) && v > 0 ? v : 1;
}

/** When to try again after the `runs`-th unavailable run in a row. */
export function waitUntil(u: UnavailableEvent, runs: number, now: number, scale: number): number {
  const reset = u.reset_at ? Date.parse(u.reset_at) : Number.NaN;
  if (reset > now) return reset + RESET_MARGIN_MS * scale;
  return now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (runs - 1)) * scale;
}

/** Moved down to proc/ (GitHub's rate limit waits with it too); still exported here for the gates. */
export { sleepUntil };

export interface Available {
  /** The last run: a normal one, a stopped one, or the refused one that ends the loop (`halt`). */
  run: AgentRun;
  /** The refused runs before it, for the iteration record; undefined when there were none. */
  waits: Iteration["unavailable"];
  /** Why the loop must end stuck: refused credentials, or a wait beyond --max-wait. */
  halt: string | null;
  /**
   * What the refused runs before `run` spent: a run refused part-way made (and was billed for) turns
   * before the refusal, and its result line says so. The user's money: it counts like `run`'s own.
   */
  refusedSpent: Spent;
}

/** What a wait reads of the loop, and the one thing it changes: `waiting`, shared by every run of the loop. */
type Waiting = Pick<State, "max_wait_hours" | "worktree_name" | "max_iterations" | "waiting">;

export interface Spent {
  tokens: Tokens;
  cost_usd: number | null;
}

/** The run the service is asked to take: the story (or the audit), its iteration and attempt, its log. */
export interface RunAt {
  storyId: string;
  iteration: number;
  attempt: number;
  logPath: string;
  /** Undoes what a refused run began; the agent's attempt is reverted to its checkpoint (the default). */
  undo?: () => Promise<unknown>;
}

/**
 * Runs the agent (`runOnce`) until its service takes the run. `state.waiting` says the loop waits
 * (its status stays `running`); a stop ends the wait at once and the run returned reads as stopped.
 */
export async function runWhenAvailable(state: Waiting, deps: LoopDeps, at: RunAt, runOnce: () => Promise<AgentRun>): Promise<Available> {
  const scale = waitScale(deps.env);
  const budget = state.max_wait_hours * 3_600_000;
  let runs = 0;
  let waited = 0;
  const waits = () => (runs ? { runs, waited_ms: Math.round(waited) } : undefined);
  const refusedSpent: Spent = { tokens: { ...ZERO_TOKENS }, cost_usd: null };
  while (true) {
    await heldBack(state, deps, at); // a stop meanwhile: the run below is refused by the stop and reads as stopped
    const run = await runOnce();
    const u = run.unavailable;
    if (!u || deps.signal.aborted || run.end === "timeout") return { run, waits: waits(), halt: null, refusedSpent };
    runs++;
    await keepLogs(at.logPath, runs);
    // What the refused run had begun (a file written before the limit hit) is not the attempt's work.
    await (at.undo ? at.undo() : deps.checkpoint.revert());
    if (u.kind === "auth") return { run, waits: waits(), halt: `${u.reason}`, refusedSpent };
    const now = Date.now();
    const own = waitUntil(u, runs, now, scale);
    // One account, one wait: the lanes of this loop and the other loops of the repository with this agent wait for it too.
    const until = deps.limits ? deps.limits.refused(own, u.reason) : own;
    if (waited + (until - now) > budget) {
      const so_far = waited ? ` after ${formatDuration(waited)} of waiting` : "";
      return {
        run,
        waits: waits(),
        refusedSpent,
        halt:
          `The agent is unavailable (${u.reason}) and trying again at ${clockTime(until, now)} would exceed --max-wait ${state.max_wait_hours} h${so_far}. ` +
          `Run \`wt-loop start\` when it is available again (--max-wait HOURS waits longer).`,
      };
    }
    state.waiting = { reason: u.reason, since: new Date(now).toISOString(), until: new Date(until).toISOString() };
    deps.store.emit({ type: "Waiting", story_id: at.storyId, iteration: at.iteration, attempt: at.attempt, runs, ...state.waiting });
    deps.setTitle(windowTitle(state.worktree_name, `waiting until ${clockTime(until, now)}`));
    await deps.store.write();
    const rested = await sleepUntil(until, deps.signal);
    waited += Date.now() - now;
    state.waiting = null;
    deps.setTitle(windowTitle(state.worktree_name, `${at.iteration}/${state.max_iterations}`));
    await deps.store.write();
    if (!rested) return { run: { ...run, end: "aborted", unavailable: null }, waits: waits(), halt: null, refusedSpent };
    addSpent(refusedSpent, run); // tried again: this run is not the one returned
  }
}

/**
 * Another lane of this loop, or another loop of this repository with this agent, was refused for a limit
 * (limit-gate.ts): no run is made before its reset, and the loop says it waits, as for its own refusal.
 */
async function heldBack(state: Waiting, deps: LoopDeps, at: RunAt): Promise<void> {
  for (let held = deps.limits?.held(); held && !deps.signal.aborted; held = deps.limits?.held()) {
    const now = Date.now();
    state.waiting = { reason: held.reason, since: new Date(now).toISOString(), until: new Date(held.until).toISOString() };
    deps.store.emit({ type: "Waiting", story_id: at.storyId, iteration: at.iteration, attempt: at.attempt, runs: 1, ...state.waiting });
    deps.setTitle(windowTitle(state.worktree_name, `waiting until ${clockTime(held.until, now)}`));
    await deps.store.write();
    const rested = await sleepUntil(held.until, deps.signal);
    state.waiting = null;
    await deps.store.write();
    if (!rested) return;
  }
}

function addSpent(to: Spent, run: AgentRun): void {
  if (!run.done) return;
  addTokens(to.tokens, run.done.tokens);
  if (run.done.cost_usd !== null) to.cost_usd = (to.cost_usd ?? 0) + run.done.cost_usd;
}

/** The refused run's logs stay beside the iteration's (the next run writes the iteration's own). */
async function keepLogs(logPath: string, runs: number): Promise<void> {
  for (const ext of [".jsonl", ".stderr"]) {
    const from = logPath.replace(/\.jsonl$/, ext);
    try {
      renameSafe(loopRoot(from), from, logPath.replace(/\.jsonl$/, `.unavailable-${runs}${ext}`));
    } catch {
      // best effort, as before: the next run writes the iteration's own log
    }
  }
}
