// A quiet agent is visibly alive: on a terminal, a status line with the iteration's elapsed time,
// erased before real output, gone after the iteration; never on a pipe.
import { expect, test } from "bun:test";
import type { LoopEvent } from "../../src/record/events.ts";
import { activityLine } from "../../src/term/activity.ts";
import { waitFor } from "../helpers/wait.ts";

const progress: LoopEvent = {
  type: "StoryProgress",
  story_id: "1",
  title: "t",
  index: 1,
  total: 1,
  completed: 0,
  iteration: 1,
  max_iterations: 9,
  attempt: 1,
  max_retries: 3,
  worktree: "w",
};
const end: LoopEvent = {
  type: "IterationEnd",
  story_id: "1",
  iteration: 1,
  outcome: "complete",
  reason: null,
  duration_ms: 0,
  turns: null,
  tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
  cost_usd: null,
  commits: [],
  files: [],
};

test("on a terminal: shown while the agent is quiet, erased before output, gone after the iteration", async () => {
  const writes: string[] = [];
  let clock = 0;
  const a = activityLine({ isTTY: true, write: (s) => writes.push(s) }, { now: () => clock, everyMs: 10 });
  a.event(progress);
  clock = 5000; // quiet for 5 s
  await waitFor("the activity line", () => writes.some((w) => w.includes("the agent is working · 5s into this iteration")), 5000, { every: 10 });
  a.out.write("a message\n");
  expect(writes.slice(-2)).toEqual(["\r\x1b[2K", "a message\n"]); // erased first
  a.event(end);
  const n = writes.length;
  clock = 20_000;
  await Bun.sleep(100);
  expect(writes.slice(n).filter((w) => w.includes("working"))).toEqual([]);
  a.dispose();
});

test("not on a pipe: output passes through untouched and no line is ever drawn", async () => {
  const writes: string[] = [];
  let clock = 0;
  const a = activityLine({ isTTY: false, write: (s) => writes.push(s) }, { now: () => clock, everyMs: 10 });
  a.event(progress);
  clock = 5000;
  await Bun.sleep(100);
  a.out.write("x\n");
  expect(writes).toEqual(["x\n"]);
  a.dispose();
});

test("during a wait on an unavailable agent: a countdown to the wait's end, gone when the agent runs again", async () => {
  const writes: string[] = [];
  let clock = Date.parse("2026-11-23T10:00:00Z");
  const a = activityLine({ isTTY: true, write: (s) => writes.push(s) }, { now: () => clock, everyMs: 10 });
  a.event(progress);
  const until = new Date(clock + 90_000).toISOString();
  a.event({ type: "Waiting", story_id: "1", iteration: 1, attempt: 1, runs: 1, reason: "rate limit", since: new Date(clock).toISOString(), until });
  await waitFor("the countdown", () => writes.some((w) => w.includes("waiting for the agent · 1m 30s left")), 5000, { every: 10 });
  clock += 60_000;
  await waitFor("the countdown a minute later", () => writes.some((w) => w.includes("waiting for the agent · 30s left")), 5000, { every: 10 });
  a.event({ type: "StoryEvent", story_id: "1", event: { type: "Message", text: "back" } });
  const n = writes.length;
  await Bun.sleep(100);
  expect(writes.slice(n).filter((w) => w.includes("waiting"))).toEqual([]);
  a.dispose();
});
