// The receipt and forecast (docs/receipt.md) on a real loop: the fake agent, real git, a stop from
// another terminal and a plain start that continues the loop. `status` shows the forecast while the
// loop runs; the attempts per story survive the restart; the end box lists them.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { THREE_STORIES } from "../helpers/fixtures.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const attempts = (receipt: any) => receipt.stories.map((s: any) => [s.id, s.attempts, s.complete]);

test("attempts per story survive a stop and a restart; status forecasts the rest while the loop runs", async () => {
  const repo = makeRepo({ "tasks.md": THREE_STORIES });
  const never = join(tempDir("never-"), "go-on"); // never created: the third run waits until it is stopped
  // Story 1 fails once, then completes; story 2's first attempt is stopped; after the restart story 2 and 3 complete.
  const agent = fakeAgent(
    [{ promise: "FAILED: not yet" }, COMPLETE(), { waitFile: never, write: { [join(repo, "wip.txt")]: "wip" } }, COMPLETE(), COMPLETE()],
    tempDir("fake-agent-"),
  );
  const first = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--max-retries", "3"], { cwd: repo, env: agent.env });
  try {
    await waitFor("the third agent run (story 2) to be under way", () => existsSync(join(agent.dir, "prompt-3.txt")) && readState(repo).agent_pid, 60_000, {
      whileRunning: first,
    });

    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.code).toBe(0);
    // One story finished (2 attempts at $0.0125 each): two left, at that story's figures.
    expect(status.stdout).toMatch(/Forecast:\s+2 stories left: ~(\d+[hm] )?\d+[sm], ~\$0\.05 \(from 1 finished story\)/);
    expect(status.stdout).toMatch(/✓ 1\. One\s+2 attempts/);
    const running = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout);
    expect(running.receipt.forecast).toMatchObject({ remaining_stories: 2, finished_stories: 1, cost_usd: { low: 0.05, high: 0.05 } });
    expect(attempts(running.receipt)).toEqual([["1", 2, true]]);

    expect((await wtLoop(["stop"], { cwd: repo })).code).toBe(0);
    expect(await first.exited).toBe(4);
  } finally {
    first.kill("SIGKILL");
  }
  const stopped = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout);
  expect(stopped.status).toBe("stopped");
  expect(attempts(stopped.receipt)).toEqual([
    ["1", 2, true],
    ["2", 1, false],
  ]);
  expect(stopped.receipt.forecast).toBeNull(); // nothing to forecast once the loop has ended

  // A plain start continues the stopped loop: its receipt goes on from the earlier run's.
  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env: agent.env });
  expect(again.code).toBe(0);
  const done = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout);
  expect(done.status).toBe("done");
  expect(done.iterations.map((i: any) => i.story_id)).toEqual(["2", "3"]); // this run's own iterations only
  expect(attempts(done.receipt)).toEqual([
    ["1", 2, true],
    ["2", 2, true],
    ["3", 1, true],
  ]);
  expect(done.receipt.stories[1].agent.cost_usd).toBeCloseTo(0.0125, 6); // the stopped run reported no cost
  // The end box lists every story with its attempts, the earlier run's included.
  expect(again.stdout).toMatch(/│ ✓ 2\. Two\s+2 attempts\s+(\d+[hm] )?\d+[sm]\s+[\d,]+ tokens\s+\$0\.01\s+│/);
  expect(again.stdout).toMatch(/│ ✓ 1\. One\s+2 attempts/);
}, 120_000);
