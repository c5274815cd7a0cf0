// `wt-loop list` and the MCP summary of a loop running stories in lanes (`--parallel`): the lanes are
// the loop's, not worktrees of their own — counted in its story column, never listed as rows.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { listLoops, summarize } from "../../src/fleet/loops.ts";
import { renderList } from "../../src/fleet/table.ts";
import { statusLine } from "../../src/fleet/statusline.ts";
import { processStartTime } from "../../src/proc/pid.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { sampleLane, sampleState } from "../helpers/state.ts";

const withLanes = () =>
  sampleState({
    status: "running",
    ended_at: null,
    parallel: 3,
    stories_total: 5,
    stories_completed: 1,
    current_story: { id: "2", title: "Parser", index: 2, attempt: 1 },
    lanes: [sampleLane("1", "Schema"), sampleLane("2", "Parser", { status: "queued", agent_pid: null })],
  });

describe("a loop with lanes in list", () => {
  test("the summary carries each lane's story, attempt and step", () => {
    expect(summarize(withLanes()).lanes).toEqual([
      { story_id: "1", story_title: "Schema", iteration: 1, attempt: 1, status: "running", agent_pid: 4242, started: "2026-11-21T10:07:30.000Z" },
      { story_id: "2", story_title: "Parser", iteration: 1, attempt: 1, status: "queued", agent_pid: null, started: "2026-11-21T10:07:30.000Z" },
    ]);
    expect(summarize(sampleState()).lanes).toEqual([]);
  });

  test("its story column says the lanes, beside the stories complete", () => {
    const entry = { worktree: "/w", name: "w", branch: "ralph/w", head: "abc", current: true, loop: summarize(withLanes()), note: null, problem: null };
    expect(renderList([entry])).toMatch(/running\s+1\/5 · 2 lanes\s+/);
    const one = { ...entry, loop: summarize({ ...withLanes(), lanes: [sampleLane("1", "Schema")] }) };
    expect(renderList([one])).toMatch(/running\s+1\/5 · 1 lane\s+/);
  });

  test("a lane's linked worktree (under the common git dir, on a lane branch) is no row of its own", async () => {
    const repo = makeRepo();
    git(repo, "worktree", "add", "-q", "-b", "wt-loop/lane/repo-abc/1-1", join(repo, ".git/wt-loop/lanes/repo-abc/1-1"));
    git(repo, "worktree", "add", "-q", "-b", "feature", join(repo, "..", "feature"));
    expect((await listLoops(repo)).map((e) => e.name)).toEqual(["repo", "feature"]);
  });

  test("Claude Code's status line: the stories complete and how many lanes, not one story's attempt", () => {
    const alive = { runner_pid: process.pid, runner_started: processStartTime(process.pid), current_iteration: 4 };
    expect(statusLine({ ...withLanes(), ...alive })).toBe("wt-loop 4/30 · story 1/5 · 2 lanes");
  });
});
