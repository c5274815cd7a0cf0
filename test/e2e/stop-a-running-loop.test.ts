// A user stops a loop from another terminal (gracefully or by force), or its runner dies: the agent's
// whole process tree is gone, completed work stays committed, and a new start continues.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { baseEnv, CLI, fakeAgent, wtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";

/** Starts `wt-loop start --terminal inline` in the background; story 1 completes, story 2 hangs. */
async function startHanging(repo: string) {
  const agent = fakeAgent([COMPLETE({ write: { [join(repo, "one.txt")]: "1" } }), { hangSec: 300, grandchild: true, write: { [join(repo, "wip.txt")]: "in progress" } }], tempDir("fake-agent-"));
  const proc = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--on-complete", "keep"], {
    cwd: repo, env: baseEnv(agent.env), stdout: "pipe", stderr: "pipe",
  });
  const statePath = join(repo, ".claude/loop-state.json");
  const grandchildFile = join(agent.dir, "grandchild.pid");
  for (let i = 0; i < 300; i++) {
    await Bun.sleep(100);
    if (existsSync(grandchildFile) && existsSync(statePath)) {
      const s = JSON.parse(readFileSync(statePath, "utf8"));
      if (s.agent_pid && s.current_iteration === 2) {
        const output = new Response(proc.stdout).text();
        return { proc, state: s, grandchild: Number(readFileSync(grandchildFile, "utf8")), output };
      }
    }
  }
  proc.kill("SIGKILL");
  throw new Error("the loop never reached its second iteration");
}

async function gone(pid: number) {
  for (let i = 0; i < 100 && isAlive(pid); i++) await Bun.sleep(100);
  return !isAlive(pid);
}

describe("stopping a running loop", () => {
  test("wt-loop stop: graceful; the agent tree is gone, the loop ends stopped (exit 4), work kept", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = await startHanging(repo);
    const stop = await wtLoop(["stop"], { cwd: repo });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("The loop is stopped");
    expect(await run.proc.exited).toBe(4);
    expect(await gone(run.state.agent_pid)).toBe(true);
    expect(await gone(run.grandchild)).toBe(true);
    const s = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
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
    expect(await gone(run.state.agent_pid)).toBe(true);
    expect(await gone(run.grandchild)).toBe(true);
    expect(JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8")).status).toBe("stopped");
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
    expect(await gone(pid)).toBe(true);
  }, 60_000);

  test("stop with no loop running says so", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    await runLoop(repo, [COMPLETE()]);
    const r = await wtLoop(["stop"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No loop is running in repo (status: done)");
  });
});
