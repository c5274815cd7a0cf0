// A user follows a loop with `wt-loop monitor` and presses Ctrl-C: the view ends, says the loop keeps
// running, and the loop does keep running.
import { expect, test } from "bun:test";
import { collect, fakeAgent, spawnWtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

test("Ctrl-C in monitor says the loop keeps running, and it does", async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const agent = fakeAgent([COMPLETE({ hangSec: 30, messages: ["working on it"] })], tempDir("fake-agent-"));
  const run = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
  try {
    await waitFor("the loop's agent to run", () => readState(repo).status === "running" && readState(repo).agent_pid, 30_000, { whileRunning: run });
    const monitor = spawnWtLoop(["monitor"], { cwd: repo });
    const out = collect(monitor.stdout);
    await waitFor("monitor to show the agent's message", () => out.text().includes("working on it"), 30_000, { whileRunning: monitor });
    monitor.kill("SIGINT");
    expect(await monitor.exited).toBe(130);
    expect(await out.done).toContain("Stopped following. The loop keeps running");
    expect(readState(repo).status).toBe("running");
  } finally {
    run.kill("SIGTERM");
    await run.exited;
  }
}, 60_000);
