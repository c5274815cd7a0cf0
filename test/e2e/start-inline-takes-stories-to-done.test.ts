// A user runs `wt-loop start --terminal inline` in a worktree with a tasks.md or an OpenSpec change,
// and the loop takes it story by story to done with the (fake) claude agent.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, openspecFiles, TASKS_2_STORIES, write } from "../helpers/repo.ts";
import { State } from "../../src/state/schema.ts";
import { LoggedEvent } from "../../src/record/events.ts";

describe("start --terminal inline: tasks.md to done", () => {
  test("two stories: two checkpoint commits, files present, state and events complete", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [
      COMPLETE({ write: { [join(repo, "a.txt")]: "a" }, messages: ["Working on story 1"] }),
      COMPLETE({ write: { [join(repo, "c.txt")]: "c" } }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Working on story 1");
    expect(r.stdout).toContain("Loop done");
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
    expect(git(repo, "log", "--format=%s", "main..HEAD").split("\n")).toEqual([
      "checkpoint: story 2 — Second story",
      "checkpoint: story 1 — First story",
      "initial state",
    ]);
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a");
    expect(git(repo, "status", "--porcelain")).toBe("");
    // The loop's own files are never committed.
    expect(git(repo, "log", "--name-only", "--format=", "main..HEAD")).not.toContain(".claude");

    const s = State.parse(r.state);
    expect(s).toMatchObject({
      status: "done",
      current_iteration: 2,
      stories_total: 2,
      stories_completed: 2,
      done_criteria: "tasks",
      completion: "keep",
      runner_pid: null,
    });
    expect(s.iterations.map((i) => [i.n, i.story_id, i.attempt, i.outcome, i.done_check, i.commits.length])).toEqual([
      [1, "1", 1, "complete", false, 1],
      [2, "2", 1, "complete", true, 1],
    ]);
    expect(s.total_tokens).toBe(2 * (100 + 20 + 30 + 40));
    expect(s.tokens).toEqual({ input: 200, output: 80, cache_read: 60, cache_creation: 40 });
    expect(s.total_cost_usd).toBeCloseTo(0.025, 10);
    expect(s.iterations[0]!.commits[0]).toBe(git(repo, "rev-parse", "HEAD~1"));
    expect(existsSync(s.iterations[0]!.log_file)).toBe(true);
    expect(readFileSync(s.iterations[0]!.log_file, "utf8")).toContain("a line that is not JSON");

    for (const e of r.events) expect(LoggedEvent.safeParse(e).success).toBe(true);
    const types = r.events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(["LoopStarted", "StoryProgress"]); // the plan first
    expect(types.at(-1)).toBe("Complete");
    expect(r.events.at(-1)).toMatchObject({ status: "done", stories_completed: 2, stories_total: 2 });
    expect(r.events.filter((e) => e.type === "StoryEvent" && e.event.type === "Message").map((e) => e.event.text)).toContain("Working on story 1");
  });

  test("the prompt names the story, its tasks and the learnings file; CLAUDECODE is removed", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [COMPLETE()], [], { CLAUDECODE: "1" });
    expect(r.code).toBe(0);
    const p = r.prompt(1);
    expect(p).toContain("## Your story: 1. First story (story 1 of 2)");
    expect(p).toContain("- [ ] 1.1 Make a");
    expect(p).toContain(join(repo, ".claude/learnings.md"));
    const argv = JSON.parse(readFileSync(join(r.agentDir, "argv-1.json"), "utf8"));
    expect(argv).toEqual({ argv: ["-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"], claudecode: null });
  });

  test("an OpenSpec change through the real openspec CLI: context files and scenarios in the prompt", async () => {
    const repo = makeRepo(openspecFiles("add-thing"));
    const { testPath } = await import("../helpers/cli.ts");
    const r = await runLoop(repo, [COMPLETE()], [], { PATH: testPath({ openspec: true }) });
    expect(r.stderr).not.toContain("openspec CLI is not installed");
    expect(r.code).toBe(0);
    expect(r.state).toMatchObject({ source: "openspec", change: "add-thing", checkpoint_branch: "ralph/add-thing" });
    const p = r.prompt(1);
    expect(p).toContain("## OpenSpec change: add-thing");
    expect(p).toContain("Proposal: openspec/changes/add-thing/proposal.md");
    expect(p).toContain("Design: openspec/changes/add-thing/design.md");
    expect(p).toContain("Scenario: Thing works");
    expect(git(repo, "log", "--format=%s", "-1")).toBe("checkpoint: story 2 — Second story");
  });

  test("without the openspec CLI the change is read from its files, with one warning", async () => {
    const repo = makeRepo(openspecFiles("add-thing"));
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/openspec CLI is not installed/g)).toHaveLength(1);
    expect(r.prompt(1)).toContain("Scenario: Thing works");
  });

  test("several active changes: an error listing them, nothing written", async () => {
    const repo = makeRepo({ ...openspecFiles("one"), ...openspecFiles("two") });
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Several OpenSpec changes have unfinished tasks");
    expect(r.stderr).toContain("one");
    expect(r.stderr).toContain("two");
    expect(existsSync(join(repo, ".claude"))).toBe(false);
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });

  test("a tasks.md whose stories are all ticked starts nothing: no agent run, no state, no branch", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [x] a\n" });
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(0);
    expect(r.calls()).toBe(0);
    expect(r.stdout).toContain("Nothing to do: every story of tasks.md is complete (1/1)");
    expect(r.state).toBeNull();
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });

  test("manual: no tasks.md, the task text is the story; the warning is printed", async () => {
    const repo = makeRepo();
    write(repo, {});
    const r = await runLoop(repo, [{ promise: "COMPLETE", write: { [join(repo, "fix.txt")]: "fixed" } }], ["Fix the bug"]);
    expect(r.stderr).toContain("No tasks.md found, using manual done criteria");
    expect(r.code).toBe(0);
    expect(r.state).toMatchObject({ done_criteria: "manual", task: "Fix the bug", status: "done" });
    expect(git(repo, "log", "--format=%s", "-1")).toBe("checkpoint: story 1 — Fix the bug");
  });
});
