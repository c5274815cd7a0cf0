// `status` of a loop running stories in lanes (`--parallel`), from sample states: a line per lane, the
// stories in lanes on the Story line, and the stories not started yet that wait for prerequisites.
import { describe, expect, test } from "bun:test";
import { parseStories } from "../../src/stories/story.ts";
import { renderStatus } from "../../src/term/status-view.ts";
import { sampleIteration, sampleLane, sampleState } from "../helpers/state.ts";

const NOW = Date.parse("2026-11-21T10:10:00.000Z");
const TASKS = "## 1. Schema\n- [ ] a\n## 2. Parser\n- [ ] b\n## 3. CLI (after 1, 2)\n- [ ] c\n## 4. Docs\n- [x] d\n## 5. Release (after 3, 4)\n- [ ] e\n";
const running = (over = {}) =>
  sampleState({
    status: "running",
    ended_at: null,
    parallel: 3,
    current_iteration: 3,
    stories_total: 5,
    stories_completed: 1,
    current_story: { id: "2", title: "Parser", index: 2, attempt: 2 },
    lanes: [
      sampleLane("1", "Schema", { iteration: 1 }),
      sampleLane("2", "Parser", { iteration: 3, attempt: 2, status: "integrating", agent_pid: null, agent_started: null, started: "2026-11-21T10:09:15.000Z" }),
    ],
    iterations: [sampleIteration(2, { story_id: "2", story_title: "Parser", started: "2026-11-21T10:07:31.000Z", ended: "2026-11-21T10:09:00.000Z" })],
    ...over,
  });

describe("status of a loop with lanes", () => {
  test("a line per lane: iteration, story, attempt, step, how long it has been open, its agent's pid", () => {
    const out = renderStatus(running(), NOW, 200);
    expect(out).toContain("\n\nLanes: 2 open of --parallel 3\n");
    expect(out).toMatch(/\n  #\s+story\s+attempt\s+step\s+open for\s+agent pid\n/);
    expect(out).toMatch(/\n  1\s+1\. Schema\s+1\/3\s+running\s+2m 30s\s+4242\n/);
    expect(out).toMatch(/\n  3\s+2\. Parser\s+2\/3\s+integrating\s+45s\s+-(\n|$)/);
  });

  test("the Story line names the stories in lanes, not only the last one begun", () => {
    expect(renderStatus(running(), NOW, 200)).toMatch(/Story:\s+1\/5 complete · in lanes: 1, 2\n/);
  });

  test("stories not started yet that name prerequisites say which, from the tasks file", () => {
    const out = renderStatus(running(), NOW, 200, parseStories(TASKS));
    expect(out).toContain("Not started: 3. CLI (after 1, 2) · 5. Release (after 3, 4)");
    // Started (an iteration or a lane), complete, or without prerequisites: not listed.
    const later = renderStatus(running({ iterations: [sampleIteration(2, { story_id: "3" })] }), NOW, 200, parseStories(TASKS));
    expect(later).toContain("Not started: 5. Release (after 3, 4)");
    expect(renderStatus(running(), NOW, 200, parseStories("## 1. A\n- [ ] a\n"))).not.toContain("Not started");
  });

  test("a story begun before the last five iterations has started: the line reads every iteration, not the ones shown", () => {
    const iterations = [sampleIteration(1, { story_id: "3" }), ...[2, 3, 4, 5, 6].map((n) => sampleIteration(n, { story_id: "2" }))];
    const out = renderStatus(running({ iterations, current_iteration: 6 }), NOW, 200, parseStories(TASKS));
    expect(out).toContain("Not started: 5. Release (after 3, 4)");
    expect(out).not.toContain("3. CLI (after 1, 2)");
  });

  test("a loop without lanes shows none of it, as before", () => {
    const out = renderStatus(sampleState({ status: "running", ended_at: null, current_story: { id: "1", title: "Setup", index: 1, attempt: 1 } }), NOW, 200);
    expect(out).not.toContain("Lanes");
    expect(out).toMatch(/Story:\s+1\/2 1\. Setup \(attempt 1\/3\)/);
  });
});
