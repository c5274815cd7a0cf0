/**
 * The loop's rules, in one place for one lane and for many (docs/architecture.md, "The policy"): what an
 * attempt's outcome means for the loop — kept, tried again with a reason, stuck, stalled, stopped — and
 * whether the loop goes on before the next attempt — stopped, a story gone from the plan, done, the budget,
 * a pause, the iteration limit, the audit. The sequential engine (engine.ts) and the scheduler of lanes
 * (lanes/scheduler.ts) both ask `decide`; each then does what the decision says in its own way (a revert in
 * the worktree, a lane closed). Pure: plain facts in, a decision out, no I/O, nothing changed.
 */
import { assertNever, thenSentence } from "../errors.ts";
import { plural } from "../text/format.ts";
import type { AttemptResult } from "./attempt.ts";
import type { Ending } from "./finish.ts";

/** An attempt has been judged (in a lane: and integrated, or not). */
export interface Attempted {
  at: "attempted";
  story: { id: string; title: string };
  outcome: AttemptResult["result"]["outcome"];
  /** Why it was not kept: the attempt's reason, or the merge queue's (a lane). Null: none given. */
  reason: string | null;
  /** Its work is on the loop's branch (in a lane: integrated). */
  kept: boolean;
  /** It changed something (a commit, a change in the tree), measured before any revert. */
  progress: boolean;
  doneCriteria: "tasks" | "manual";
  /** This story's attempts in this run, this one included; the limit (`--max-retries`). */
  attempt: number;
  maxRetries: number;
  /** Attempts in a row without progress before this one; the limit (`--stall-threshold`). */
  noProgress: number;
  stallThreshold: number;
}

/** At the top of a turn, the stories read again: does anything end the loop before the steering inbox is read? */
export interface Turn {
  at: "turn";
  stopRequested: boolean;
  /** The ending when stories of the plan are gone from the tasks file (story-turn.ts), else null. */
  gone: Ending | null;
  /** Every story is complete (in lanes: and none is running). */
  allDone: boolean;
  /** --audit: whether a round is due once every story is complete; else what the done reason adds. */
  audit: { due: true } | { due: false; note: string | null };
  /** The budget's reason when spending reached it (record/budget.ts), else null. */
  overBudget: string | null;
}

/** The steering inbox read: may the next attempt (or the audit) start? */
export interface Go {
  at: "go";
  pauseRequested: boolean;
  iteration: number;
  maxIterations: number;
  allDone: boolean;
}

export type Situation = Attempted | Turn | Go;

export type AfterAttempt =
  /** Kept: the story's attempts, its retry reason and the count of attempts without progress start afresh. */
  | { kind: "accept" }
  /** The loop ends at once, the tree as the attempt left it (a stop, an unavailable agent, a manual `complete`). */
  | { kind: "end"; ending: Ending }
  /** Not kept, attempts left: the next one is told `reason` (none after `no_signal`: it starts afresh). */
  | { kind: "retry"; reason: string | undefined; noProgress: number }
  /** Not kept, and the loop ends on it: `stuck` (its attempts are spent; told as an Error event) or `stalled`. */
  | { kind: "give-up"; ending: Ending; tell: boolean; noProgress: number };

export type AtTurn = { kind: "end"; ending: Ending } | { kind: "done"; note: string | null } | { kind: "on" };

export type AtGo = { kind: "pause" } | { kind: "end"; ending: Ending } | { kind: "audit" } | { kind: "attempt" };

export type Decision<S extends Situation> = S extends Attempted ? AfterAttempt : S extends Turn ? AtTurn : AtGo;

export const STOPPED: Ending = { status: "stopped", reason: "Stopped by the user" };

/** What the loop does next, in the situation `s`. */
export function decide<S extends Situation>(s: S): Decision<S> {
  const d = s.at === "attempted" ? afterAttempt(s) : s.at === "turn" ? atTurn(s) : atGo(s);
  return d as Decision<S>;
}

function afterAttempt(a: Attempted): AfterAttempt {
  switch (a.outcome) {
    case "stopped":
      return { kind: "end", ending: STOPPED };
    case "unavailable":
      return { kind: "end", ending: { status: "stuck", reason: a.reason ?? "The agent is unavailable" } }; // waiting more would not help
    case "complete":
    case "failed":
    case "no_signal":
    case "timeout":
    case "rejected":
      break;
    default:
      return assertNever(a.outcome);
  }
  if (a.kept)
    return a.doneCriteria === "manual" && a.outcome === "complete"
      ? { kind: "end", ending: { status: "done", reason: "The agent reported the task complete" } }
      : { kind: "accept" };
  const noProgress = a.progress ? 0 : a.noProgress + 1;
  // `stuck` wins over `stalled` (docs/how-it-works.md): it names the story.
  if (a.attempt >= a.maxRetries) {
    const reason = `Story ${a.story.id} "${a.story.title}" failed after ${plural(a.attempt, "attempt")}. Last reason: ${a.reason ?? a.outcome}`;
    return { kind: "give-up", ending: { status: "stuck", reason }, tell: true, noProgress };
  }
  if (noProgress >= a.stallThreshold)
    return {
      kind: "give-up",
      ending: { status: "stalled", reason: `No progress in the last ${plural(noProgress, "iteration")} (no new commit, no change in the working tree)` },
      tell: false,
      noProgress,
    };
  // After no_signal the next attempt starts afresh; every other failure tells it what went wrong.
  return { kind: "retry", reason: a.outcome === "no_signal" ? undefined : (a.reason ?? undefined), noProgress };
}

/** In this order: the user's stop, then a plan that cannot be done, then done (which wins over the budget: nothing more would be spent). */
function atTurn(t: Turn): AtTurn {
  if (t.stopRequested) return { kind: "end", ending: STOPPED };
  if (t.gone) return { kind: "end", ending: t.gone };
  // --audit: one more agent run checks the whole change against its goal before it is called done.
  if (t.allDone && !t.audit.due) return { kind: "done", note: t.audit.note };
  if (t.overBudget) return { kind: "end", ending: { status: "stopped", reason: t.overBudget, stopReason: "budget" } };
  return { kind: "on" };
}

/** A pause comes before the iteration limit, so the limit can be raised (docs/steering.md). */
function atGo(g: Go): AtGo {
  if (g.pauseRequested) return { kind: "pause" };
  if (g.iteration >= g.maxIterations)
    return {
      kind: "end",
      ending: {
        status: "stuck",
        reason:
          `Reached the maximum of ${plural(g.maxIterations, "iteration")} before the work was done` +
          `${g.allDone ? " (every story is complete; the audit did not run)" : ""}`,
      },
    };
  return g.allDone ? { kind: "audit" } : { kind: "attempt" };
}

/** The ending of a loop whose stories are all complete (with what --audit adds, if anything). */
export function allComplete(stories: number, note: string | null): Ending {
  const reason = stories === 1 ? "The 1 story is complete" : `All ${stories} stories are complete`;
  return { status: "done", reason: note ? thenSentence(reason, note) : reason };
}
