// endedState: the one builder of an ended loop's state (the engine's finish, a dead or force-quit
// runner, a runner that failed to set up, a window that never opened).
import { describe, expect, test } from "bun:test";
import { endedState } from "../../src/state/ending.ts";
import { State } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

const running = () =>
  sampleState({
    status: "running",
    ended_at: null,
    completion: null,
    runner_pid: 4242,
    runner_started: "99",
    agent_pid: 4343,
    current_iteration: 2,
    iterations: [sampleIteration(1, { outcome: "complete", story_id: "1" })],
    current_story: { id: "2", title: "Build", index: 2, attempt: 1 },
    waiting: { since: "2026-11-21T10:06:00.000Z", until: "2026-11-21T11:00:00.000Z", reason: "rate limit" },
  });

describe("endedState", () => {
  test("the final status and reason, ended now, nothing left in flight, and a valid state", () => {
    const s = endedState(running(), { status: "stopped", reason: "Force-quit by the user" }, "2026-11-21T10:07:00.000Z");
    expect(s).toMatchObject({
      status: "stopped",
      reason: "Force-quit by the user",
      error: null,
      stop_reason: null,
      current_story: null,
      agent_pid: null,
      runner_pid: null,
      waiting: null,
      completion_pending: false,
      ended_at: "2026-11-21T10:07:00.000Z",
      updated_at: "2026-11-21T10:07:00.000Z",
    });
    expect(State.safeParse(s).success).toBe(true);
  });

  test("the story in flight is the unchecked one: its work is in the tree, never accepted", () => {
    expect(endedState(running(), { status: "stopped", reason: "r" }).unchecked_story).toBe("2");
  });

  test.each([
    [
      { status: "stuck", reason: "Fatal error: disk full", error: "disk full" },
      { error: "disk full", stop_reason: null },
    ],
    [
      { status: "stopped", reason: "Budget reached", stopReason: "budget" },
      { error: null, stop_reason: "budget" },
    ],
    [
      { status: "done", reason: "All stories complete" },
      { error: null, stop_reason: null },
    ],
  ] as const)("%o", (end, want) => expect(endedState(running(), end)).toMatchObject({ status: end.status, reason: end.reason, ...want }));

  test("the state it was given is not changed", () => {
    const before = running();
    const copy = structuredClone(before);
    endedState(before, { status: "stopped", reason: "r" });
    expect(before).toEqual(copy);
  });
});
