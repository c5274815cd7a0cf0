// A view attached to a loop (a full screen, monitor from another terminal) reads what it shows from
// the event log: the whole plan at the start, the files each iteration changed, and where a message
// too long to hold in memory is.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LoggedEvent, parseLoggedEvent } from "../../src/record/events.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

const byPath = (files: { path: string; status: string }[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));

describe("the event log tells a view", () => {
  test("the plan first: every story with its task counts, and the done criteria", async () => {
    const tasks = TASKS_2_STORIES.replace("- [ ] 1.1 Make a", "- [x] 1.1 Make a");
    const r = await runLoop(makeRepo({ "tasks.md": tasks }), [COMPLETE(), COMPLETE()], ["--max", "7", "--max-retries", "2"]);
    expect(r.code).toBe(0);
    for (const e of r.events) expect(LoggedEvent.safeParse(e).success).toBe(true);
    expect(r.events.filter((e) => e.type === "LoopStarted")).toHaveLength(1);
    expect(r.events[0]).toMatchObject({
      type: "LoopStarted",
      worktree: "repo",
      change: null,
      done_criteria: "tasks",
      checkpoint: "branch",
      max_iterations: 7,
      max_retries: 2,
      verify: null,
      stories: [
        { id: "1", title: "First story", tasks: 2, done: 1 },
        { id: "2", title: "Second story", tasks: 1, done: 0 },
      ],
    });
    expect(r.events[0].tasks_file).toEndWith("tasks.md");
  }, 60_000);

  test.each(["branch", "stash"])(
    "each iteration's changed paths, added, modified and deleted (%s checkpoints)",
    async (checkpoint) => {
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES, "keep.txt": "keep\n", "old.txt": "old\n", "edit.txt": "before\n" });
      const r = await runLoop(
        repo,
        [COMPLETE({ write: { "new.txt": "new\n", "edit.txt": "after\n" }, deleteFile: "old.txt" }), COMPLETE()],
        ["--checkpoint", checkpoint],
      );
      expect(r.code).toBe(0);
      const ends = r.events.filter((e) => e.type === "IterationEnd");
      expect(byPath(ends[0].files)).toEqual([
        { path: "edit.txt", status: "modified" },
        { path: "new.txt", status: "added" },
        { path: "old.txt", status: "deleted" },
        { path: "tasks.md", status: "modified" }, // its ticks
      ]);
      // The second story's attempt starts from the first one's kept work: only its own ticks changed.
      expect(ends[1].files).toEqual([{ path: "tasks.md", status: "modified" }]);
    },
    60_000,
  );

  test("an agent that commits, then changes more: the commits' paths and the tree's, as one list", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES, "keep.txt": "keep\n" });
    const r = await runLoop(repo, [COMPLETE({ write: { "made.txt": "m\n" }, commit: "agent's own commit", git: [["rm", "-q", "keep.txt"]] }), COMPLETE()]);
    expect(r.code).toBe(0);
    const ends = r.events.filter((e) => e.type === "IterationEnd");
    expect(byPath(ends[0].files)).toEqual([
      { path: "keep.txt", status: "deleted" },
      { path: "made.txt", status: "added" },
      { path: "tasks.md", status: "modified" },
    ]);
  }, 60_000);

  test("a failed attempt's files are told before it is reverted", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [{ promise: "FAILED: cannot", write: { "half.txt": "half\n" } }, COMPLETE(), COMPLETE()]);
    expect(r.code).toBe(0);
    const ends = r.events.filter((e) => e.type === "IterationEnd");
    expect(ends[0]).toMatchObject({ outcome: "failed", files: [{ path: "half.txt", status: "added" }] });
  }, 60_000);

  test("a message too long to hold: the log has the whole of it, and the spilled facts say where it is", async () => {
    const r = await runLoop(makeRepo({ "tasks.md": TASKS_2_STORIES }), [COMPLETE({ hugeMessageMB: 2 }), COMPLETE()]);
    expect(r.code).toBe(0);
    const huge = r.events.find((e) => e.type === "StoryEvent" && e.event.type === "Message" && e.event.spilled);
    expect(huge).toBeDefined();
    const { text, spilled } = huge.event;
    expect(text).toStartWith("start:");
    expect(text).toEndWith(":end");
    expect(spilled.chars).toBe(text.length);
    expect(spilled.path).toBe(r.state.iterations[0]!.log_file);
    // The byte range is the text, JSON-escaped, in the iteration log.
    const raw = readFileSync(spilled.path).subarray(spilled.start, spilled.end).toString("utf8");
    expect(JSON.parse(`"${raw}"`)).toBe(text);
    // Short messages carry no such facts.
    const short = r.events.filter((e) => e.type === "StoryEvent" && e.event.type === "Message" && e.event !== huge.event);
    for (const e of short) expect(e.event.spilled).toBeUndefined();
  }, 60_000);

  test("a log written before these events existed is still read: no LoopStarted, no files", () => {
    const old = JSON.stringify({
      ts: "2026-01-01T00:00:00.000Z",
      type: "IterationEnd",
      story_id: "1",
      iteration: 1,
      outcome: "complete",
      reason: null,
      duration_ms: 5,
      turns: 1,
      tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
      cost_usd: null,
      commits: ["abc"],
    });
    expect(parseLoggedEvent(old)).toMatchObject({ type: "IterationEnd", commits: ["abc"], files: [] });
    const message = JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", type: "StoryEvent", story_id: "1", event: { type: "Message", text: "hi" } });
    expect(parseLoggedEvent(message)).toEqual({ ts: "2026-01-01T00:00:00.000Z", type: "StoryEvent", story_id: "1", event: { type: "Message", text: "hi" } });
  });
});
