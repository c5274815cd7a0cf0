// A user stops a loop from another terminal (gracefully or by force), or its runner dies: the agent's
// whole process tree is gone, completed work stays committed, and a new start continues.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

/** Starts `wt-loop start --terminal inline` in the background; story 1 completes, story 2 hangs. */
async function startHanging(repo: string) {
  const agent = fakeAgent(
    [COMPLETE({ write: { [join(repo, "one.txt")]: "1" } }), { hangSec: 300, grandchild: true, write: { [join(repo, "wip.txt")]: "in progress" } }],
    tempDir("fake-agent-"),
  );
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: agent.env });
  const grandchildFile = join(agent.dir, "grandchild.pid");
  const state = await waitFor(
    "the loop's second iteration to run its agent",
    () => {
      const s = existsSync(grandchildFile) && readState(repo);
      return s && s.agent_pid && s.current_iteration === 2 && s;
    },
    30_000,
    { whileRunning: proc },
  ).catch((e) => {
    proc.kill("SIGKILL");
    throw e;
  });
  return { proc, state, grandchild: Number(readFileSync(grandchildFile, "utf8")), output: new Response(proc.stdout).text() };
}

describe("stopping a running loop", () => {
  test("wt-loop stop: graceful; the agent tree is gone, the loop ends stopped (exit 4), work kept", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = await startHanging(repo);
    const stop = await wtLoop(["stop"], { cwd: repo });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("The loop is stopped");
    expect(await run.proc.exited).toBe(4);
    await waitGone("the agent", run.state.agent_pid);
    await waitGone("the agent's grandchild", run.grandchild);
    const s = readState(repo);
    expect(s).toMatchObject({ status: "stopped", runner_pid: null, completion: "keep" });
    expect(s.iterations.at(-1).outcome).toBe("stopped");
    expect(git(repo, "log", "--format=%s", "-1")).toBe("checkpoint: story 1 — First story");
    expect(readFileSync(join(repo, "wip.txt"), "utf8")).toBe("in progress"); // in-progress work stays in the tree
    expect(await run.output).toContain("Loop stopped");
  }, 60_000);

  test("wt-loop stop --force kills the runner and the agent's whole group at once", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = await startHanging(repo);
    const stop = await wtLoop(["stop", "--force"], { cwd: repo });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("Killed the loop");
    expect(await run.proc.exited).toBe(137);
    await waitGone("the agent", run.state.agent_pid);
    await waitGone("the agent's grandchild", run.grandchild);
    expect(readState(repo).status).toBe("stopped");
  }, 60_000);

  test("a runner killed with SIGKILL: status reports it, nothing is lost, a new start continues the branch", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = await startHanging(repo);
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    process.kill(-run.state.agent_pid, "SIGKILL"); // what --no-orphans does for the compiled binary
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toContain("is no longer alive");
    expect(status.stdout).toContain("Loop in repo: stopped");
    expect(readFileSync(join(repo, "wip.txt"), "utf8")).toBe("in progress");
    const again = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("loop-runs/");
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
    expect(git(repo, "log", "--format=%s", "-3").split("\n")).toEqual([
      "checkpoint: story 2 — Second story",
      "initial state", // the dead run's in-progress work, committed before the new run
      "checkpoint: story 1 — First story",
    ]);
    expect(readFileSync(join(repo, "wip.txt"), "utf8")).toBe("in progress");
  }, 60_000);

  test("start refuses while a live runner holds the worktree, naming its pid", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = await startHanging(repo);
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`runner pid ${run.state.runner_pid}`);
    await wtLoop(["stop", "--force"], { cwd: repo });
    await run.proc.exited;
  }, 60_000);

  test("a leftover of the last agent run that ignores SIGTERM does not outlive run", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const r = await runLoop(repo, [COMPLETE({ stubbornGrandchild: true })]);
    expect(r.code).toBe(0);
    const pid = Number(readFileSync(join(r.agentDir, "stubborn.pid"), "utf8"));
    await waitGone("the leftover that ignores SIGTERM", pid);
  }, 60_000);

  test("stop with no loop running says so", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    await runLoop(repo, [COMPLETE()]);
    const r = await wtLoop(["stop"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No loop is running in repo (status: done)");
  });
});
