// After a loop, a user asks what the agent did: `wt-loop log` story by story, one iteration, an
// earlier (archived) run, or JSON; `history` gives each failed attempt's reason and `--runs` the runs.
import { describe, expect, test } from "bun:test";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { wtLoop } from "../helpers/cli.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

describe("wt-loop log on a real finished loop", () => {
  test("--story, --iteration, --json and --run show the agent's messages, tool calls and outcomes", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const first = await runLoop(
      repo,
      [
        COMPLETE({ messages: ["Story one: writing a"] }),
        { promise: "FAILED: the build of c is broken", messages: ["Story two, first try"] },
        COMPLETE({ messages: ["Story two, second try"] }),
      ],
      ["--on-complete", "keep"],
    );
    expect(first.code).toBe(0);

    const all = await wtLoop(["log"], { cwd: repo });
    expect(all.code).toBe(0);
    for (const m of ["Story one: writing a", "Story two, first try", "Story two, second try", "reason: the build of c is broken", "outcome failed"])
      expect(all.stdout).toContain(m);
    expect(all.stdout).toMatch(/Run started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · done · 2\/2 stories · 3 iterations/);

    const story2 = await wtLoop(["log", "--story", "2"], { cwd: repo });
    expect(story2.stdout).not.toContain("Story one: writing a");
    expect(story2.stdout).toContain("Story two, first try");
    expect(story2.stdout).toContain("Story two, second try");

    const it2 = await wtLoop(["log", "--iteration", "2"], { cwd: repo });
    expect(it2.stdout).toContain("Story two, first try");
    expect(it2.stdout).not.toContain("Story two, second try");
    expect(it2.stdout).toContain("raw agent output: .claude/logs/");

    const json = JSON.parse((await wtLoop(["log", "--json", "--story", "2"], { cwd: repo })).stdout);
    expect(json.run).toMatchObject({ status: "done", iterations: 3 });
    expect(json.iterations.map((i: any) => [i.n, i.outcome, i.reason])).toEqual([
      [2, "failed", "the build of c is broken"],
      [3, "complete", null],
    ]);
    expect(json.iterations[0].events.some((e: any) => e.type === "StoryEvent" && e.event.text === "Story two, first try")).toBe(true);

    const missing = await wtLoop(["log", "--iteration", "9"], { cwd: repo });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("No iteration 9 in this run.");

    // history: the reason of the failed attempt, and the date with the time in UTC.
    const h = await wtLoop(["history"], { cwd: repo });
    expect(h.stdout).toMatch(/started \(UTC\)/);
    expect(h.stdout).toMatch(/2\s+2\s+1\s+failed\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d .* the build of c is broken/);
    expect(h.stdout).toContain("Total: 3 iterations");

    // A second run archives the first; log --run still shows it, history --runs lists it.
    const startedFirst: string = first.state.started_at;
    const second = await runLoop(repo, [{ promise: "COMPLETE", messages: ["A second run"] }], ["--done", "manual", "--on-complete", "keep", "a second task"]);
    expect(second.code).toBe(0);
    const runs = await wtLoop(["history", "--runs"], { cwd: repo });
    const key = startedFirst.replace(/:/g, "-");
    expect(runs.stdout).toContain(key);
    expect(runs.stdout).toMatch(/done\s+3\s+2\/2/);
    const old = await wtLoop(["log", "--run", startedFirst, "--story", "2"], { cwd: repo });
    expect(old.code).toBe(0);
    expect(old.stdout).toContain("Story two, first try");
    expect(old.stdout).toContain(`Task: ${first.state.task.split("\n")[0]}`);
    const current = await wtLoop(["log"], { cwd: repo });
    expect(current.stdout).toContain("Task: a second task");
    expect(current.stdout).not.toContain("Story two, first try");
    const unknown = await wtLoop(["log", "--run", "2001-01-01T00:00:00.000Z"], { cwd: repo });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Archived runs: ${key}`);
  });
});
