// A worktree where wt-tools' bash wt-loop ran leaves a state file without schema_version: status and
// history read it, and a new start archives it untouched instead of refusing with a schema dump.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo } from "../helpers/repo.ts";

const SEED = {
  worktree_name: "repo",
  task: "Implement auth",
  done_criteria: "tasks",
  max_iterations: 10,
  current_iteration: 1,
  status: "stuck",
  terminal_pid: null,
  started_at: "2026-11-01T10:00:00+01:00",
  stall_threshold: 2,
  iteration_timeout_min: 45,
  total_tokens: 1000,
  iterations: [
    { n: 1, started: "2026-11-01T10:00:05+01:00", ended: "2026-11-01T10:10:00+01:00", done_check: false, commits: [], tokens_used: 1000, timed_out: false },
  ],
};

test("a wt-tools state file: status and history read it; start archives it as it was", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. Only story\n- [ ] 1.1 Do it\n" });
  mkdirSync(join(repo, ".claude"));
  const text = JSON.stringify(SEED, null, 2);
  writeFileSync(join(repo, ".claude/loop-state.json"), text);

  const status = await wtLoop(["status"], { cwd: repo });
  expect(status.code).toBe(0);
  expect(status.stdout).toContain("Loop in repo: stuck");
  expect(status.stdout).toContain("Implement auth");
  const history = await wtLoop(["history"], { cwd: repo });
  expect(history.code).toBe(0);
  expect(history.stdout).toContain("Total: 1 iteration ·");

  const r = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep"]);
  expect(r.code).toBe(0);
  const runs = readdirSync(join(repo, ".claude/loop-runs"));
  expect(runs.length).toBe(1);
  expect(readFileSync(join(repo, ".claude/loop-runs", runs[0]!), "utf8")).toBe(text);
});

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

test("a wt-tools loop stopped days ago: status and list show its run time and its tasks file's stories", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. First\n- [x] 1.1 a\n\n## 2. Second\n- [ ] 2.1 b\n" });
  mkdirSync(join(repo, ".claude"));
  const seed = {
    ...SEED,
    status: "stopped",
    started_at: ago(5 * DAY),
    iterations: [
      { n: 1, started: ago(5 * DAY - 5_000), ended: ago(5 * DAY - 12 * 60_000), done_check: false, commits: [], tokens_used: 1000, timed_out: false },
    ],
  };
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(seed));

  const status = await wtLoop(["status"], { cwd: repo });
  expect(status.stdout).toMatch(/Elapsed: +12m 00s/);
  expect(status.stdout).toMatch(/Story: +1\/2 complete/);
  const list = await wtLoop(["list"], { cwd: repo });
  expect(list.stdout).toContain("12m 00s");
  expect(list.stdout).not.toContain("120h");
  expect(list.stdout).toMatch(/stopped +1\/2 /);
});

test("a wt-tools loop with no iterations and no tasks file: its run time and stories are unknown, not invented", async () => {
  const repo = makeRepo();
  mkdirSync(join(repo, ".claude"));
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify({ ...SEED, status: "stopped", started_at: ago(5 * DAY), iterations: [] }));

  const status = await wtLoop(["status"], { cwd: repo });
  expect(status.stdout).toMatch(/Elapsed: +unknown/);
  expect(status.stdout).toMatch(/Story: +unknown/);
  const list = await wtLoop(["list"], { cwd: repo });
  expect(list.stdout).toMatch(/stopped +unknown +1\/10 +unknown/);
  const json = JSON.parse((await wtLoop(["list", "--json"], { cwd: repo })).stdout);
  expect(json[0].loop.elapsed_ms).toBeNull();
});
