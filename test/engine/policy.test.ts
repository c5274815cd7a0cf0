/**
 * The loop's rules as a table (src/engine/policy.ts): the one policy the sequential engine and the scheduler of
 * lanes both ask. Each row is a situation and the decision it must give; the engines' own tests (engine.test.ts,
 * test/parallel/scheduler.test.ts) check that each does what the decision says.
 */
import { describe, expect, test } from "bun:test";
import { allComplete, decide, type Attempted, type Go, type Turn } from "../../src/engine/policy.ts";

const story = { id: "2", title: "Add the parser" };
const attempted = (over: Partial<Attempted>): Attempted => ({
  at: "attempted",
  story,
  outcome: "failed",
  reason: "tests fail",
  kept: false,
  progress: true,
  doneCriteria: "tasks",
  attempt: 1,
  maxRetries: 3,
  noProgress: 0,
  stallThreshold: 2,
  ...over,
});

describe("after an attempt", () => {
  const rows: [string, Partial<Attempted>, unknown][] = [
    ["kept: the story's count starts afresh", { outcome: "complete", reason: null, kept: true }, { kind: "accept" }],
    [
      "kept after attempts without progress: the stall count starts afresh too",
      { outcome: "complete", reason: null, kept: true, noProgress: 1, progress: false },
      { kind: "accept" },
    ],
    [
      "--done manual, kept on a complete: done",
      { outcome: "complete", reason: null, kept: true, doneCriteria: "manual" },
      { kind: "end", ending: { status: "done", reason: "The agent reported the task complete" } },
    ],
    [
      "--done manual, work without a promise kept: the agent goes again",
      { outcome: "no_signal", reason: "No promise", kept: true, doneCriteria: "manual" },
      { kind: "accept" },
    ],
    [
      "a stop",
      { outcome: "stopped", reason: "Stopped by the user during the agent run" },
      { kind: "end", ending: { status: "stopped", reason: "Stopped by the user" } },
    ],
    [
      "a stop on the last attempt is a stop, not stuck",
      { outcome: "stopped", reason: "Stopped by the user", attempt: 3, progress: false, noProgress: 5 },
      { kind: "end", ending: { status: "stopped", reason: "Stopped by the user" } },
    ],
    [
      "an agent that stays unavailable: stuck with its reason, attempts left or not",
      { outcome: "unavailable", reason: "The agent is unavailable (auth)" },
      { kind: "end", ending: { status: "stuck", reason: "The agent is unavailable (auth)" } },
    ],
    ["failed, attempts left: retried with its reason", { outcome: "failed", reason: "no db" }, { kind: "retry", reason: "no db", noProgress: 0 }],
    [
      "rejected by a gate: retried with the gate's reason",
      { outcome: "rejected", reason: "Unticked: 2.1" },
      { kind: "retry", reason: "Unticked: 2.1", noProgress: 0 },
    ],
    ["timeout: retried with the reason", { outcome: "timeout", reason: "exceeded 45 min" }, { kind: "retry", reason: "exceeded 45 min", noProgress: 0 }],
    ["no_signal: retried afresh (no reason)", { outcome: "no_signal", reason: "No promise" }, { kind: "retry", reason: undefined, noProgress: 0 }],
    [
      "a lane kept but not integrated (a conflict): retried with the merge queue's reason",
      { outcome: "complete", reason: "Conflict in a.txt" },
      { kind: "retry", reason: "Conflict in a.txt", noProgress: 0 },
    ],
    ["no progress, below the threshold: counted", { progress: false, noProgress: 0 }, { kind: "retry", reason: "tests fail", noProgress: 1 }],
    ["progress resets the count", { progress: true, noProgress: 1 }, { kind: "retry", reason: "tests fail", noProgress: 0 }],
    [
      "the attempts spent: stuck naming the story, told as an Error",
      { attempt: 3 },
      {
        kind: "give-up",
        tell: true,
        noProgress: 0,
        ending: { status: "stuck", reason: 'Story 2 "Add the parser" failed after 3 attempts. Last reason: tests fail' },
      },
    ],
    [
      "one attempt allowed",
      { attempt: 1, maxRetries: 1 },
      {
        kind: "give-up",
        tell: true,
        noProgress: 0,
        ending: { status: "stuck", reason: 'Story 2 "Add the parser" failed after 1 attempt. Last reason: tests fail' },
      },
    ],
    [
      "the attempts spent without a reason: the outcome is the reason",
      { attempt: 3, outcome: "rejected", reason: null },
      {
        kind: "give-up",
        tell: true,
        noProgress: 0,
        ending: { status: "stuck", reason: 'Story 2 "Add the parser" failed after 3 attempts. Last reason: rejected' },
      },
    ],
    [
      "stuck wins over stalled when one attempt reaches both",
      { attempt: 3, progress: false, noProgress: 1 },
      {
        kind: "give-up",
        tell: true,
        noProgress: 2,
        ending: { status: "stuck", reason: 'Story 2 "Add the parser" failed after 3 attempts. Last reason: tests fail' },
      },
    ],
    [
      "the stall threshold reached: stalled, not told as an Error",
      { attempt: 2, progress: false, noProgress: 1 },
      {
        kind: "give-up",
        tell: false,
        noProgress: 2,
        ending: { status: "stalled", reason: "No progress in the last 2 iterations (no new commit, no change in the working tree)" },
      },
    ],
    [
      "a threshold of 1: the first attempt without progress",
      { progress: false, stallThreshold: 1 },
      {
        kind: "give-up",
        tell: false,
        noProgress: 1,
        ending: { status: "stalled", reason: "No progress in the last 1 iteration (no new commit, no change in the working tree)" },
      },
    ],
  ];
  for (const [name, over, want] of rows) test(name, () => expect(decide(attempted(over))).toEqual(want as never));
});

const turn = (over: Partial<Turn>): Turn => ({
  at: "turn",
  stopRequested: false,
  gone: null,
  allDone: false,
  audit: { due: false, note: null },
  overBudget: null,
  ...over,
});
const gone = { status: "stuck" as const, reason: "The tasks file no longer has these stories of the plan: 3" };
const BUDGET = "Reached the budget: $1.00 of $1.00";

describe("at the top of a turn (in this order: stop, a story gone, done, the budget)", () => {
  const rows: [string, Partial<Turn>, unknown][] = [
    ["nothing ends the loop", {}, { kind: "on" }],
    ["a stop", { stopRequested: true }, { kind: "end", ending: { status: "stopped", reason: "Stopped by the user" } }],
    // The two engines differed here: the scheduler said `stuck` (gone) and `done`; the user's stop is what ended the loop.
    [
      "a stop wins over a story gone from the plan",
      { stopRequested: true, gone },
      { kind: "end", ending: { status: "stopped", reason: "Stopped by the user" } },
    ],
    ["a stop wins over done", { stopRequested: true, allDone: true }, { kind: "end", ending: { status: "stopped", reason: "Stopped by the user" } }],
    ["a story gone", { gone }, { kind: "end", ending: gone }],
    ["a story gone wins over done (done would not be true of the plan)", { gone, allDone: true }, { kind: "end", ending: gone }],
    ["every story complete", { allDone: true }, { kind: "done", note: null }],
    ["done wins over the budget: nothing more would be spent", { allDone: true, overBudget: BUDGET }, { kind: "done", note: null }],
    [
      "--audit rounds spent: done, with the note",
      { allDone: true, audit: { due: false, note: "The audit ran its 2 rounds" } },
      { kind: "done", note: "The audit ran its 2 rounds" },
    ],
    ["--audit due: the turn goes on (to the audit)", { allDone: true, audit: { due: true } }, { kind: "on" }],
    [
      "--audit due over budget: stopped by the budget",
      { allDone: true, audit: { due: true }, overBudget: BUDGET },
      { kind: "end", ending: { status: "stopped", reason: BUDGET, stopReason: "budget" } },
    ],
    ["the budget reached", { overBudget: BUDGET }, { kind: "end", ending: { status: "stopped", reason: BUDGET, stopReason: "budget" } }],
  ];
  for (const [name, over, want] of rows) test(name, () => expect(decide(turn(over))).toEqual(want as never));
});

const go = (over: Partial<Go>): Go => ({ at: "go", pauseRequested: false, iteration: 3, maxIterations: 30, allDone: false, ...over });

describe("before the next attempt (the inbox read: a pause, then the iteration limit)", () => {
  const max = (suffix: string) => ({
    kind: "end",
    ending: { status: "stuck", reason: `Reached the maximum of 30 iterations before the work was done${suffix}` },
  });
  const rows: [string, Partial<Go>, unknown][] = [
    ["an attempt", {}, { kind: "attempt" }],
    ["a pause", { pauseRequested: true }, { kind: "pause" }],
    ["a pause wins over the limit, so the limit can be raised", { pauseRequested: true, iteration: 30 }, { kind: "pause" }],
    ["the limit", { iteration: 30 }, max("")],
    ["the limit with every story complete: the audit did not run", { iteration: 30, allDone: true }, max(" (every story is complete; the audit did not run)")],
    ["every story complete, the audit due: the audit", { allDone: true }, { kind: "audit" }],
    ["one iteration left: an attempt", { iteration: 29 }, { kind: "attempt" }],
  ];
  for (const [name, over, want] of rows) test(name, () => expect(decide(go(over))).toEqual(want as never));
  test("one iteration allowed says so in the singular", () =>
    expect(decide(go({ iteration: 1, maxIterations: 1 }))).toEqual({
      kind: "end",
      ending: { status: "stuck", reason: "Reached the maximum of 1 iteration before the work was done" },
    }));
});

describe("the done reason", () => {
  test("one story, many, and the audit's note", () => {
    expect(allComplete(1, null)).toEqual({ status: "done", reason: "The 1 story is complete" });
    expect(allComplete(3, null)).toEqual({ status: "done", reason: "All 3 stories are complete" });
    expect(allComplete(3, "The audit ran its 2 rounds.")).toEqual({ status: "done", reason: "All 3 stories are complete. The audit ran its 2 rounds." });
  });
});
