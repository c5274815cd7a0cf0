// loop_log's reader: the recent events of one story from the end of the event log, bounded.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { linesBackward, recentEvents } from "../../src/fleet/recent-events.ts";
import { tempDir } from "../helpers/repo.ts";

const T0 = "2026-11-21T10:00:00.000Z";
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const progress = (story: string, s: number) => ({
  ts: at(s),
  type: "StoryProgress",
  story_id: story,
  title: `Story ${story}`,
  index: Number(story),
  total: 2,
  completed: 0,
  iteration: 1,
  max_iterations: 30,
  attempt: 1,
  max_retries: 3,
  worktree: "wt",
});
const message = (story: string, s: number, text: string) => ({ ts: at(s), type: "StoryEvent", story_id: story, event: { type: "Message", text } });

describe("recent events of a story", () => {
  test("lines come back last to first, across chunk boundaries and a line longer than a chunk", async () => {
    const file = join(tempDir(), "log.jsonl");
    const lines = ["a", "x".repeat(3 << 20), "b", "", "c"];
    writeFileSync(file, lines.join("\n") + "\n");
    const back: string[] = [];
    for await (const l of linesBackward(file)) back.push(l);
    expect(back).toEqual(["c", "b", "x".repeat(3 << 20), "a"]);
  });

  test("stops at the story's first event: a long history before it is not read", async () => {
    const file = join(tempDir(), "events.jsonl");
    const early = Array.from({ length: 50_000 }, (_, i) => JSON.stringify(message("1", 1, `old ${i}`)));
    // An older stretch of story 2 before story 1's: a reader that went on through the whole log would pick it up.
    const older = [progress("2", 0), message("2", 0, "an older stretch")].map((e) => JSON.stringify(e));
    writeFileSync(
      file,
      [...older, JSON.stringify(progress("1", 1)), "not json", ...early, JSON.stringify(progress("2", 2)), JSON.stringify(message("2", 3, "hi")), ""].join(
        "\n",
      ),
    );
    const r = await recentEvents(file, { since: T0, limit: 50, maxChars: 100 });
    expect(r).toMatchObject({ story_id: "2", more: false, clipped: false });
    expect(r.events.map((e) => (e.type === "StoryEvent" && e.event.type === "Message" ? e.event.text : e.type))).toEqual(["StoryProgress", "hi"]);
  });

  test("an earlier run's events in the same file are left out", async () => {
    const file = join(tempDir(), "events.jsonl");
    writeFileSync(file, [message("1", -10, "last run"), progress("1", 1), message("1", 2, "this run")].map((e) => JSON.stringify(e)).join("\n") + "\n");
    const r = await recentEvents(file, { since: T0, storyId: "1", limit: 50, maxChars: 100 });
    expect(r.events.map((e) => (e.type === "StoryEvent" && e.event.type === "Message" ? e.event.text : e.type))).toEqual(["StoryProgress", "this run"]);
  });

  test("no log yet: no events", async () => {
    expect(await recentEvents(join(tempDir(), "none.jsonl"), { since: T0, limit: 5, maxChars: 100 })).toEqual({
      story_id: null,
      events: [],
      more: false,
      clipped: false,
    });
  });
});
