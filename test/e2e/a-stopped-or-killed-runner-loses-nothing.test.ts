// SIGTERM or SIGKILL of the runner while it takes a checkpoint, reverts, accepts or cleans up, then
// `wt-loop start`: the user's work is intact byte for byte, no user branch or stash moved, and the
// new loop finishes (an interrupted cleanup is finished first) — with branch and stash checkpoints.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { collect, fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { AGENT_FILE, expectIntact, HANG_ON, hangEnv, ralphStashes, record, userWorkRepo, type Mode, type Point } from "../checkpoint/user-work.ts";

function script(point: Point, repo: string, flag: string): object[] {
  const mine = { [join(repo, AGENT_FILE)]: "agent's attempt\n", [flag]: "" };
  if (point === "checkpoint") return [COMPLETE()];
  if (point === "accept") return [COMPLETE({ write: mine })];
  return [{ promise: "FAILED: no", write: mine }];
}

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  describe.each(["SIGTERM", "SIGKILL"] as const)("%s", (signal) => {
    test.each(["checkpoint", "revert", "accept", "cleanup"] as const)(
      `the runner gets ${signal} during the %s, then wt-loop start: nothing is lost`,
      async (point) => {
        const repo = userWorkRepo();
        const before = record(repo);
        const flag = join(tempDir("hang-"), "hang.flag");
        if (point === "checkpoint") writeFileSync(flag, "");
        const agent = fakeAgent(script(point, repo, flag), tempDir("fake-agent-"));
        const args = [
          "--checkpoint",
          mode,
          "--command-timeout",
          "4",
          "--on-complete",
          "cleanup",
          ...(point === "cleanup" || point === "revert" ? ["--max-retries", point === "cleanup" ? "1" : "2"] : []),
        ];
        const proc = spawnWtLoop(["start", "--terminal", "inline", ...args], {
          cwd: repo,
          env: { ...agent.env, ...hangEnv(flag, HANG_ON[point][mode]) },
          stdout: "ignore",
          stderr: "ignore",
        });
        await waitFor(`git to hang in the ${point}`, () => existsSync(`${flag}.hanging`), 30_000, { whileRunning: proc });
        proc.kill(signal);
        const code = await proc.exited;
        const sleeper = Number(readFileSync(`${flag}.hanging`, "utf8"));
        if (isAlive(sleeper)) process.kill(sleeper, "SIGKILL"); // the hung git's sleep, orphaned by SIGKILL
        rmSync(flag);
        if (signal === "SIGTERM") expect(code).toBe(point === "cleanup" ? 2 : 4); // cleanup runs after the loop ended stuck
        const first = readState(repo);
        // The harness failed under the stop: keep. At "checkpoint" the first commit-tree is now the snapshot of the user's
        // pre-loop work (refs/wt-loop/…/before-…), taken before the first checkpoint: a stop there ends the loop with no error.
        if (signal === "SIGTERM" && point !== "cleanup") {
          expect(first.completion === "cleanup").toBe(false);
          if (point !== "checkpoint" || first.error !== null) expect(first.error).toContain("timed out");
        }

        const again = await runLoop(repo, [COMPLETE()], ["--checkpoint", mode, "--on-complete", "cleanup"]);
        expect([again.code, again.state.reason]).toEqual([0, expect.any(String)]);
        expect(git(repo, "branch", "--show-current")).toBe("main");
        expectIntact(repo, before);
        expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
      },
      60_000,
    );
  });
});

test("a stale .git/index.lock left by a killed runner's git is removed by the next start", async () => {
  const repo = userWorkRepo();
  const before = record(repo);
  const first = await runLoop(repo, [{ promise: "FAILED: no" }], ["--checkpoint", "stash", "--max-retries", "1", "--on-complete", "keep"]);
  expect(first.code).toBe(2);
  writeFileSync(join(repo, ".git/index.lock"), ""); // what a git killed by SIGKILL leaves
  const r = await runLoop(repo, [COMPLETE()], ["--checkpoint", "stash", "--on-complete", "cleanup"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("index.lock");
  expect(existsSync(join(repo, ".git/index.lock"))).toBe(false);
  expectIntact(repo, before);
});

test("status says when a completion was interrupted, and wt-loop stop finishes it", async () => {
  const repo = userWorkRepo();
  const before = record(repo);
  const flag = join(tempDir("hang-"), "hang.flag");
  const r = await runLoop(
    repo,
    [{ promise: "FAILED: no", write: { [flag]: "" } }],
    ["--checkpoint", "stash", "--max-retries", "1", "--on-complete", "cleanup", "--command-timeout", "2"],
    hangEnv(flag, "drop"),
  );
  expect(r.code).toBe(2);
  expect(r.state.completing).toBe("cleanup");
  const s = await wtLoop(["status"], { cwd: repo });
  expect(s.stdout).toContain("the cleanup has not finished");
  expect(ralphStashes(repo).length).toBe(1);
  const stop = await wtLoop(["stop"], { cwd: repo });
  expect(stop.code).toBe(0);
  expect(stop.stdout).toContain("Finished the previous loop's interrupted cleanup");
  expect(ralphStashes(repo)).toEqual([]);
  expect(readState(repo)).toMatchObject({ completing: null, completion: "cleanup" });
  expectIntact(repo, before);
});

test("while a live runner is in its cleanup, status says so and stop waits for it (no 'No loop is running')", async () => {
  const repo = userWorkRepo();
  const flag = join(tempDir("hang-"), "hang.flag");
  const agent = fakeAgent([{ promise: "FAILED: no", write: { [flag]: "" } }], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--checkpoint", "stash", "--max-retries", "1", "--on-complete", "cleanup"], {
    cwd: repo,
    env: { ...agent.env, ...hangEnv(flag, "drop") },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor("git to hang in the cleanup", () => existsSync(`${flag}.hanging`), 30_000, { whileRunning: proc });
  const s = await wtLoop(["status"], { cwd: repo });
  expect(s.stdout).toContain("Completion: the cleanup is under way");
  const stopping = spawnWtLoop(["stop", "--wait", "30"], { cwd: repo });
  const stopOut = collect(stopping.stdout);
  // Said once stop has read the state and signalled the runner: only then may the slow call end.
  await waitFor("stop to signal the runner", () => stopOut.text().includes("is finishing its completion step"), 30_000, { whileRunning: stopping });
  process.kill(Number(readFileSync(`${flag}.hanging`, "utf8")), "SIGKILL"); // the slow git call ends (it fails)
  await stopping.exited;
  const stopText = await stopOut.done;
  expect(stopText).not.toContain("No loop is running");
  expect(stopText).toContain("The loop is stuck");
  expect(await proc.exited).toBe(2);
}, 60_000);
