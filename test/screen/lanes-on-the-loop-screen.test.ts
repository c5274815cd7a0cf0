// The loop screen of a loop running stories in lanes (`--parallel`): every story in a lane is marked as
// running — from the state, not only the story of the last iteration begun — with its lane's step.
import { describe, expect, test } from "bun:test";
import type { LoopEvent } from "../../src/record/events.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { sampleLane, sampleState } from "../helpers/state.ts";

const started: LoopEvent = {
  type: "LoopStarted",
  worktree: "wt",
  change: null,
  tasks_file: null,
  done_criteria: "tasks",
  checkpoint: "branch",
  max_iterations: 30,
  max_retries: 3,
  verify: null,
  stories: [
    { id: "1", title: "Schema", tasks: 1, done: 0 },
    { id: "2", title: "Parser", tasks: 1, done: 0 },
    { id: "3", title: "CLI", tasks: 1, done: 0 },
  ],
};
const progress = (id: string, iteration: number): LoopEvent => ({
  type: "StoryProgress",
  story_id: id,
  title: id,
  index: Number(id),
  total: 3,
  completed: 0,
  iteration,
  max_iterations: 30,
  attempt: 1,
  max_retries: 3,
  worktree: "wt",
});

describe("lanes on the loop screen", () => {
  test("every story in a lane is running, the ones not at their agent say their step; the others as their events say", () => {
    const m = new LoopModel({ mode: "monitor" });
    m.resize(100, 30);
    // Attached late: the events say only story 3 began; the state says 1 and 3 are in lanes.
    for (const e of [started, progress("3", 2)]) m.event(e);
    m.state(
      sampleState({
        status: "running",
        ended_at: null,
        parallel: 2,
        current_story: { id: "3", title: "CLI", index: 3, attempt: 1 },
        lanes: [sampleLane("1", "Schema", { status: "integrating", agent_pid: null }), sampleLane("3", "CLI", { iteration: 2 })],
      }),
    );
    const rows = m.frame(Date.now()).list.rows;
    expect(rows.map((r) => r.glyph)).toEqual(["▶", "·", "▶"]);
    expect(rows[0]!.detail).toContain("integrating");
    expect(rows[2]!.detail).not.toContain("running");
  });

  test("once the loop has ended, the state's lanes mark nothing", () => {
    const m = new LoopModel({ mode: "monitor" });
    m.resize(100, 30);
    m.event(started);
    m.state(sampleState({ status: "stopped", lanes: [sampleLane("2", "Parser")] }));
    expect(m.frame(Date.now()).list.rows.map((r) => r.glyph)).toEqual(["·", "·", "·"]);
  });
});
