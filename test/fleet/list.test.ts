// `wt-loop list`: every worktree of the repository with its loop — here one running, one done and one
// whose runner was killed — for a person (one line each) and for programs (--json).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { repoWithWorktrees, startHangingLoop } from "../helpers/fleet.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { readState } from "../helpers/fixtures.ts";

let repo: ReturnType<typeof repoWithWorktrees>;
let running: Awaited<ReturnType<typeof startHangingLoop>>;
let deadPid: number;

beforeAll(async () => {
  repo = repoWithWorktrees(["wt-run", "wt-done", "wt-dead"]);
  const done = await runLoop(repo.wt["wt-done"]!, [COMPLETE()], ["--on-complete", "keep"]);
  if (done.code !== 0) throw new Error(done.stderr);
  const dead = await startHangingLoop(repo.wt["wt-dead"]!);
  deadPid = dead.proc.pid;
  await dead.stop();
  running = await startHangingLoop(repo.wt["wt-run"]!);
}, 120_000);
afterAll(() => running?.stop());

describe("wt-loop list", () => {
  test("--json: each worktree with its loop; the dead runner is shown as such and its state corrected on disk", async () => {
    const r = await wtLoop(["list", "--json"], { cwd: repo.wt["wt-done"]! });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.map((e: any) => e.name)).toEqual(["repo", "wt-dead", "wt-done", "wt-run"]); // git lists the main worktree first, then by path;
    const by = Object.fromEntries(list.map((e: any) => [e.name, e]));
    expect(by.repo).toMatchObject({ branch: "main", loop: null, current: false, problem: null });
    expect(by["wt-done"]).toMatchObject({ current: true, branch: "ralph/wt-done", note: null });
    expect(by["wt-done"].loop).toMatchObject({
      status: "done",
      waiting: null,
      stories_completed: 2,
      stories_total: 2,
      iteration: 2,
      max_iterations: 30,
      runner_alive: false,
      runner_pid: null,
    });
    expect(by["wt-run"].loop).toMatchObject({
      status: "running",
      runner_alive: true,
      runner_pid: running.proc.pid,
      iteration: 1,
      story: { id: "1", title: "First story", index: 1, attempt: 1 },
      stories_total: 2,
    });
    expect(by["wt-dead"].loop).toMatchObject({ status: "stopped", runner_alive: false, runner_pid: deadPid });
    expect(by["wt-dead"].note).toContain(`pid ${deadPid}`);
    const onDisk = readState(repo.wt["wt-dead"]!);
    expect(onDisk.status).toBe("stopped");
  }, 60_000);

  test("one line per worktree for a person, the current one marked", async () => {
    const r = await wtLoop(["list"], { cwd: join(repo.wt["wt-run"]!) });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^\s+WORKTREE\s+BRANCH\s+STATUS\s+STORY\s+ITERATION\s+ELAPSED\s+COST\s+RUNNER$/);
    const row = (name: string) => lines.find((l) => l.split(/\s+/).includes(name))!;
    expect(row("repo")).toMatch(/repo\s+main\s+no loop$/);
    expect(row("wt-run")).toMatch(
      new RegExp(`^\\*\\s+wt-run\\s+ralph/wt-run\\s+running\\s+1/2\\s+1/30\\s+\\S+\\s+\\$0\\.00\\s+alive \\(pid ${running.proc.pid}\\)$`),
    );
    expect(row("wt-done")).toMatch(/wt-done\s+ralph\/wt-done\s+done\s+2\/2\s+2\/30\s+\S+\s+\$\S+\s+-$/);
    expect(row("wt-dead")).toMatch(/wt-dead\s+ralph\/wt-dead\s+stopped\s+0\/2\s+1\/30/);
  }, 60_000);

  test("outside a git repository: the usual message, exit 1 (list, and mcp before any protocol)", async () => {
    for (const cmd of ["list", "mcp"]) {
      const r = await wtLoop([cmd], { cwd: tempDir() });
      expect(r).toEqual({ code: 1, stdout: "", stderr: "Not inside a git worktree. Run from within a worktree directory.\n" });
    }
  });
});

describe("what a loop is waiting on", () => {
  test("a final status whose runner is still alive and has not made the completion choice is asking keep/cleanup", async () => {
    const { summarize } = await import("../../src/fleet/loops.ts");
    const { processStartTime } = await import("../../src/proc/pid.ts");
    const { sampleState } = await import("../helpers/state.ts");
    const alive = { runner_pid: process.pid, runner_started: processStartTime(process.pid) };
    expect(summarize(sampleState({ status: "done", completion: null, ...alive })).waiting).toBe("question");
    expect(summarize(sampleState({ status: "done", completion: "keep", ...alive })).waiting).toBe(null);
    expect(summarize(sampleState({ status: "running", completion: null, ...alive })).waiting).toBe(null);
    expect(summarize(sampleState({ status: "done", completion: null, runner_pid: null })).waiting).toBe(null);
  });

  test("a running loop whose agent hit a usage limit is waiting for the agent, until the time it is tried again", async () => {
    const { summarize } = await import("../../src/fleet/loops.ts");
    const { statusLabel } = await import("../../src/fleet/table.ts");
    const { clockTime } = await import("../../src/text/format.ts");
    const { processStartTime } = await import("../../src/proc/pid.ts");
    const { sampleState } = await import("../helpers/state.ts");
    const alive = { runner_pid: process.pid, runner_started: processStartTime(process.pid) };
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const waiting = { reason: "usage limit reached", since: new Date().toISOString(), until };
    const l = summarize(sampleState({ status: "running", ended_at: null, completion: null, waiting, ...alive }));
    expect(l).toMatchObject({ waiting: "agent", waiting_until: until });
    expect(statusLabel(l)).toBe(`running, waiting for the agent until ${clockTime(Date.parse(until))}`);
    // A dead runner waits for nothing.
    expect(summarize(sampleState({ status: "running", ended_at: null, completion: null, waiting, runner_pid: null }))).toMatchObject({
      waiting: null,
      waiting_until: null,
    });
  });
});
