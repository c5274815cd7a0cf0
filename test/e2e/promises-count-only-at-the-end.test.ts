// `done` only on a real promise: at the end of the agent's final message, outside code fences; and
// finding it never hangs the loop, whatever the agent printed.
import { expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

test("manual mode: a promise quoted in a code block, followed by 'I could NOT finish', is not done", async () => {
  const repo = makeRepo();
  const final = "The rule says to end with:\n```\n<promise>COMPLETE</promise>\n```\nI could NOT finish the task.";
  const r = await runLoop(repo, [{ final, promise: null }], ["--done", "manual", "--max", "1", "Do the task"]);
  expect(r.state.status).not.toBe("done");
  expect(r.state.iterations[0]!.outcome).toBe("no_signal");
  expect(r.code).toBe(2);
}, 60_000);

test("1 MB of unclosed promises: the loop ends promptly (linear promise detection)", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. One\n- [ ] 1.1 a\n" });
  const junk = "<promise>FAILED: ".repeat(65_000); // ~1 MB; the old regex needed 30-40 s of CPU per scan
  const t0 = Date.now();
  const r = await runLoop(repo, [{ messages: [junk], final: junk, promise: null }], ["--max", "1"]);
  expect(r.state.iterations[0]!.outcome).toBe("no_signal");
  expect(r.state.status).toBe("stuck");
  expect(Date.now() - t0).toBeLessThan(20_000);
}, 60_000);

test("1 MB of unclosed promises: a stop right after the agent exits is honoured at once", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. One\n- [ ] 1.1 a\n" });
  const junk = "<promise>FAILED: ".repeat(65_000);
  // The first run ends with the junk (the old regex then blocked the runner for 30-40 s); the retry hangs.
  const agent = fakeAgent([{ messages: [junk], final: junk, promise: null }, { hangSec: 300 }], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--stall-threshold", "5"], {
    cwd: repo,
    env: agent.env,
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor("the first agent run to end", () => existsSync(join(agent.dir, "done")), 30_000, { whileRunning: proc });
  const t0 = Date.now();
  expect((await wtLoop(["stop"], { cwd: repo })).stdout).toContain("The loop is stopped");
  expect(await proc.exited).toBe(4);
  expect(Date.now() - t0).toBeLessThan(15_000);
}, 60_000);
