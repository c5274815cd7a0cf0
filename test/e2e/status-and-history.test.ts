// A user checks on a loop with `status` and `history`, as text and as JSON.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeState } from "../../src/state/store.ts";
import { State } from "../../src/state/schema.ts";
import { wtLoop } from "../helpers/cli.ts";
import { makeRepo } from "../helpers/repo.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";
import { readState } from "../helpers/fixtures.ts";

async function repoWithState(over = {}) {
  const repo = makeRepo();
  const s = sampleState({
    worktree_path: repo,
    worktree_name: "repo",
    total_tokens: 2469134,
    total_cost_usd: 3.25,
    ended_at: "2026-11-21T11:02:03.000Z",
    iterations: [sampleIteration(1), sampleIteration(2, { outcome: "complete", timed_out: true, commits: ["abc", "def"], cost_usd: 1.75 })],
    ...over,
  });
  await writeState(join(repo, ".claude/loop-state.json"), s);
  return { repo, s };
}

describe("status", () => {
  test("human: status, iteration, story, elapsed, tokens with separators, cost, last iterations", async () => {
    const { repo } = await repoWithState({
      status: "stuck",
      current_story: { id: "2", title: "Wire it", index: 2, attempt: 3 },
      stories_total: 4,
      reason: "Story 2 failed",
    });
    const r = await wtLoop(["status"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Loop in repo: stuck");
    expect(r.stdout).toContain("Iteration:  2/30");
    expect(r.stdout).toContain("Story:      2/4 2. Wire it (attempt 3/3)");
    expect(r.stdout).toContain("Elapsed:    1h 02m");
    expect(r.stdout).toContain("Tokens:     2,469,134");
    expect(r.stdout).toContain("Cost:       $3.25");
    expect(r.stdout).toContain("Reason: Story 2 failed");
    expect(r.stdout).toMatch(/2\s+1\s+1\s+complete\s+2026-11-21 10:00:00\s+1m 05s\s+2\s+1,234,567\s+\$1\.75\s+yes$/m);
  });

  test("--json prints the validated state", async () => {
    const { repo, s } = await repoWithState();
    const r = await wtLoop(["status", "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(State.parse(JSON.parse(r.stdout))).toEqual(s);
  });

  test("no loop yet: says how to start one", async () => {
    const r = await wtLoop(["status"], { cwd: makeRepo() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No loop has run in repo yet");
    expect(r.stderr).toContain("wt-loop start");
  });

  test("a running state whose runner is dead is corrected to stopped, and status says so", async () => {
    const dead = Bun.spawnSync(["true"]).pid;
    const { repo } = await repoWithState({ status: "running", runner_pid: dead, runner_started: "123" });
    const r = await wtLoop(["status"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`runner (pid ${dead}) is no longer alive`);
    expect(r.stdout).toContain("Loop in repo: stopped");
    expect(readState(repo).status).toBe("stopped");
  });

  test("a corrupt state file: one paragraph naming the file and fields, exit 1, the file untouched", async () => {
    const repo = makeRepo();
    const path = join(repo, ".claude/loop-state.json");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(repo, ".claude"));
    const bad = JSON.stringify({ ...sampleState(), total_tokens: "many" });
    writeFileSync(path, bad);
    for (const cmd of [["status"], ["status", "--json"], ["history"], ["start", "--terminal", "inline", "x"]]) {
      const r = await wtLoop(cmd, { cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(path);
      expect(r.stderr).toContain("→ at total_tokens");
      expect(r.stderr).not.toContain("    at ");
    }
    expect(readFileSync(path, "utf8")).toBe(bad);
  });
});

describe("history", () => {
  test("human: one row per iteration and totals", async () => {
    const { repo } = await repoWithState();
    const r = await wtLoop(["history"], { cwd: repo });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^#\s+story\s+attempt\s+outcome\s+started \(UTC\)\s+duration\s+commits\s+tokens\s+cost\s+timed out\s+reason$/);
    expect(lines[1]).toMatch(/^1\s+1\s+1\s+failed\s+2026-11-21 10:00:00\s+1m 05s\s+0\s+1,234,567\s+\$1\.50\s+no\s+tests fail$/);
    expect(lines[2]).toMatch(/^2\s+1\s+1\s+complete/);
    expect(r.stdout).toContain("Total: 2 iterations · 2m 10s · 2 commits · 2,469,134 tokens · $3.25 · 1 timed out");
  });

  test("--json: iterations and totals", async () => {
    const { repo, s } = await repoWithState();
    const r = await wtLoop(["history", "--json"], { cwd: repo });
    const j = JSON.parse(r.stdout);
    expect(j.iterations).toEqual(s.iterations);
    expect(j.totals).toEqual({
      iterations: 2,
      duration_ms: 130000,
      commits: 2,
      tokens: 2469134,
      cost_usd: 3.25,
      timed_out: 1,
      unavailable_runs: 0,
      waited_ms: 0,
    });
  });
});
