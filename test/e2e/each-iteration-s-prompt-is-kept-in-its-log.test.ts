// A user reads what the agent was told in each iteration: the prompt is kept beside the iteration's log,
// and the event that starts the iteration names it.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

test("each iteration's prompt is in logs/<run>/iter-NNN.prompt.md, named by its StoryProgress event", async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const run = await runLoop(repo, [{ promise: "FAILED: not yet" }, COMPLETE(), COMPLETE()], ["--max-retries", "2"]);
  expect(run.code).toBe(0);
  const starts = run.events.filter((e) => e.type === "StoryProgress");
  expect(starts.length).toBe(3);
  starts.forEach((e, i) => {
    expect(e.prompt_file).toMatch(new RegExp(`/\\.claude/logs/[^/]+/iter-00${i + 1}\\.prompt\\.md$`));
    expect(readFileSync(e.prompt_file, "utf8")).toBe(run.prompt(i + 1));
  });
  // The retry's prompt carries the reason the first attempt failed.
  expect(readFileSync(starts[1].prompt_file, "utf8")).toContain("not yet");
}, 60_000);
