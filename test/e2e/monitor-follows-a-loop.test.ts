// A user follows a loop from another terminal with `wt-loop monitor`.
import { describe, expect, test } from "bun:test";
import { collect, fakeAgent, spawnWtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";
import { waitFor } from "../helpers/wait.ts";
import { writeState } from "../../src/state/store.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const spawnCli = (args: string[], cwd: string, env: Record<string, string> = {}) => spawnWtLoop(args, { cwd, env });

describe("monitor", () => {
  test("waits for a loop, shows what run shows, and exits with the loop's exit code", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const monitor = spawnCli(["monitor"], repo);
    const monitorOut = collect(monitor.stdout);
    await waitFor("monitor to wait for a loop", () => monitorOut.text().startsWith("Waiting for loop to start..."), 30_000, { whileRunning: monitor });
    const agent = fakeAgent(
      [COMPLETE({ messages: ["hello from story 1"] }), { promise: "FAILED: cannot", messages: ["story 2 says hi"] }],
      tempDir("fake-agent-"),
    );
    const run = spawnCli(["start", "--terminal", "inline", "--max-retries", "1"], repo, agent.env);
    const [runOut, runCode] = await Promise.all([new Response(run.stdout).text(), run.exited]);
    const [monOut, monCode] = await Promise.all([monitorOut.done, monitor.exited]);
    expect(runCode).toBe(2);
    expect(monCode).toBe(2);
    expect(monOut.startsWith("Waiting for loop to start...")).toBe(true);
    // The same renderer: every line run printed for the loop, monitor printed too.
    const loopLines = (s: string) => s.split("\n").filter((l) => l.trim() && !l.startsWith("Waiting"));
    expect(loopLines(monOut)).toEqual(loopLines(runOut));
    expect(monOut).toContain("hello from story 1");
  }, 60_000);

  test("--story ID shows only that story's messages", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    await runLoop(repo, [COMPLETE({ messages: ["first story text"] }), COMPLETE({ messages: ["second story text"] })]);
    const mon = spawnCli(["monitor", "--story", "2"], repo);
    const [out, code] = await Promise.all([new Response(mon.stdout).text(), mon.exited]);
    expect(code).toBe(0);
    expect(out).toContain("second story text");
    expect(out).not.toContain("first story text");
    expect(out).toContain("Loop done");
  }, 60_000);

  test("a loop that ended without a Complete event (force-quit) still ends monitor, with its exit code", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const started = new Date(Date.now() - 5000).toISOString();
    await writeState(
      join(repo, ".claude/loop-state.json"),
      sampleState({ worktree_path: repo, status: "stopped", started_at: started, runner_pid: null, reason: "Force-quit by the user" }),
    );
    writeFileSync(
      join(repo, ".claude/loop-events.jsonl"),
      JSON.stringify({ ts: new Date().toISOString(), type: "Error", message: "before the force-quit" }) + "\n",
    );
    const mon = spawnCli(["monitor"], repo);
    const [out, code] = await Promise.all([new Response(mon.stdout).text(), mon.exited]);
    expect(code).toBe(4);
    expect(out).toContain("before the force-quit");
    expect(out).toContain("The loop ended stopped: Force-quit by the user");
  }, 60_000);

  test("an unknown option is refused", async () => {
    const mon = spawnCli(["monitor", "--follow"], makeRepo());
    expect(await mon.exited).toBe(1);
    expect(await new Response(mon.stderr).text()).toContain("Unknown option --follow");
  });
});
