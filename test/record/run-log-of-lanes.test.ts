// `wt-loop log` of a run whose iterations overlapped in lanes (`--parallel`): the event log interleaves
// them, each is read back whole — its lane's steps, before and after the agent's run, included — in
// the order they began, and `--story` / `--iteration` take exactly one lane's events.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoopEvent } from "../../src/record/events.ts";
import { streamRunLog, type IterationHead, type Selection } from "../../src/record/run-log.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

const TOKENS = { input: 1, output: 1, cache_read: 0, cache_creation: 0 };
const progress = (id: string, n: number): LoopEvent => ({
  type: "StoryProgress",
  story_id: id,
  title: `S${id}`,
  index: Number(id),
  total: 3,
  completed: 0,
  iteration: n,
  max_iterations: 30,
  attempt: 1,
  max_retries: 3,
  worktree: "w",
});
const said = (id: string, text: string): LoopEvent => ({ type: "StoryEvent", story_id: id, event: { type: "Message", text } });
const end = (id: string, n: number): LoopEvent => ({
  type: "IterationEnd",
  story_id: id,
  iteration: n,
  outcome: "complete",
  reason: null,
  duration_ms: 1,
  turns: 1,
  tokens: TOKENS,
  cost_usd: null,
  commits: [],
  files: [],
});
const lane = (id: string, n: number, step: Extract<LoopEvent, { type: "Lane" }>["step"]): LoopEvent => ({
  type: "Lane",
  story_id: id,
  iteration: n,
  attempt: 1,
  step,
  worktree: `/g/lanes/${id}-1`,
  commits: [],
  paths: [],
  reason: null,
});
// The order the scheduler writes them: lane 1 and lane 2 open, both agents talk, 2 ends first and is
// integrated while 1 still runs, then 1 ends and is integrated.
const INTERLEAVED: LoopEvent[] = [
  lane("1", 1, "opened"),
  progress("1", 1),
  lane("2", 2, "opened"),
  progress("2", 2),
  said("1", "one: a"),
  said("2", "two: a"),
  { type: "Error", message: "a note of the loop" },
  said("2", "two: b"),
  end("2", 2),
  lane("2", 2, "queued"),
  said("1", "one: b"),
  lane("2", 2, "integrating"),
  lane("2", 2, "integrated"),
  end("1", 1),
  lane("2", 2, "closed"),
  lane("1", 1, "queued"),
  lane("1", 1, "integrating"),
  lane("1", 1, "integrated"),
  lane("1", 1, "closed"),
];

async function read(sel: Selection, events = INTERLEAVED) {
  const dir = tempDir();
  const file = join(dir, "events.jsonl");
  writeFileSync(file, events.map((e, i) => JSON.stringify({ ...e, ts: `2026-11-21T10:00:${String(i).padStart(2, "0")}.000Z` })).join("\n") + "\n");
  const state = sampleState({ iterations: [sampleIteration(2, { story_id: "2" }), sampleIteration(1, { story_id: "1" })] });
  const out: string[] = [];
  const n = await streamRunLog({ state, events: file, window: null, archived: false }, sel, {
    begin: (h: IterationHead) => out.push(`begin ${h.n} story ${h.story_id}${h.record ? " recorded" : ""}`),
    event: (e) =>
      out.push(
        e.type === "StoryEvent" && e.event.type === "Message" ? `  ${e.event.text}` : e.type === "Lane" ? `  lane ${e.story_id} ${e.step}` : `  ${e.type}`,
      ),
    end: (h: IterationHead) => out.push(`end ${h.n}`),
  });
  return { n, out };
}

describe("the log of lanes", () => {
  test("--story 1: only lane 1's events, its steps before and after the agent's run included (after its heading)", async () => {
    const { n, out } = await read({ story: "1" });
    expect(n).toBe(1);
    expect(out).toEqual([
      "begin 1 story 1 recorded",
      "  StoryProgress",
      "  lane 1 opened",
      "  one: a",
      "  Error",
      "  one: b",
      "  IterationEnd",
      "  lane 1 queued",
      "  lane 1 integrating",
      "  lane 1 integrated",
      "  lane 1 closed",
      "end 1",
    ]);
  });

  test("--iteration 2: lane 2's, and nothing of lane 1", async () => {
    const { out } = await read({ iteration: 2 });
    expect(out).toEqual([
      "begin 2 story 2 recorded",
      "  StoryProgress",
      "  lane 2 opened",
      "  two: a",
      "  two: b",
      "  IterationEnd",
      "  lane 2 queued",
      "  lane 2 integrating",
      "  lane 2 integrated",
      "  lane 2 closed",
      "end 2",
    ]);
  });

  test("the whole log: each iteration whole, in the order they began, none twice", async () => {
    const { n, out } = await read({});
    expect(n).toBe(2);
    expect(out.filter((l) => !l.startsWith("  "))).toEqual(["begin 1 story 1 recorded", "end 1", "begin 2 story 2 recorded", "end 2"]);
    expect(out.slice(out.indexOf("begin 2 story 2 recorded"))).toContain("  two: b");
    expect(out.slice(0, out.indexOf("end 1"))).not.toContain("  two: a");
    expect(out.slice(0, out.indexOf("end 1"))).toEqual(expect.arrayContaining(["  one: b", "  lane 1 integrated"]));
  });

  test("a lane still running when the log ends is handed over as far as it goes", async () => {
    const { out } = await read({}, INTERLEAVED.slice(0, 7));
    expect(out.filter((l) => !l.startsWith("  "))).toEqual(["begin 1 story 1 recorded", "end 1", "begin 2 story 2 recorded", "end 2"]);
  });
});
