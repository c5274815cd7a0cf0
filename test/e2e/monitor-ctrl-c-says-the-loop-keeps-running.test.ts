// A user follows a loop with `wt-loop monitor` and presses Ctrl-C: the view ends, says the loop keeps
// running, and the loop does keep running.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, fakeAgent } from "../helpers/cli.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";

test("Ctrl-C in monitor says the loop keeps running, and it does", async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const agent = fakeAgent([COMPLETE({ hangSec: 30, messages: ["working on it"] })], tempDir("fake-agent-"));
  const run = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: baseEnv(agent.env), stdout: "ignore", stderr: "ignore" });
  const statePath = join(repo, ".claude/loop-state.json");
  const state = () => (existsSync(statePath) ? JSON.parse(readFileSync(statePath, "utf8")) : {});
  try {
    for (let i = 0; i < 600 && !(state().status === "running" && state().agent_pid); i++) await Bun.sleep(50);
    const monitor = Bun.spawn([process.execPath, CLI, "monitor"], { cwd: repo, env: baseEnv(), stdout: "pipe", stderr: "pipe" });
    let out = "";
    const reader = (async () => {
      for await (const chunk of monitor.stdout) out += new TextDecoder().decode(chunk);
    })();
    for (let i = 0; i < 600 && !out.includes("working on it"); i++) await Bun.sleep(50);
    expect(out).toContain("working on it");
    monitor.kill("SIGINT");
    expect(await monitor.exited).toBe(130);
    await reader;
    expect(out).toContain("Stopped following. The loop keeps running");
    expect(state().status).toBe("running");
  } finally {
    run.kill("SIGTERM");
    await run.exited;
  }
}, 60_000);
