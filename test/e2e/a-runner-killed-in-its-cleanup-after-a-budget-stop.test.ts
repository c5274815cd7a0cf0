// A loop stopped by its budget runs its completion step like any ending; the runner is killed in the
// middle of the cleanup. What the next command does about it must be recorded: `start` finishes the
// cleanup and then refuses (the budget is spent) — the state must not go on saying the cleanup is
// unfinished, or that the work is on a branch the cleanup deleted. And a cleanup that had not begun
// is not recorded as done.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState, TWO_STORIES as TWO } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { hangEnv } from "../checkpoint/user-work.ts";

/** Runs a loop whose budget is reached by its first run, and SIGKILLs its runner when git runs `hangOn` in the cleanup. */
async function killedInCleanup(hangOn: string) {
  const repo = makeRepo({ "tasks.md": TWO });
  const flag = join(tempDir("hang-"), "hang.flag");
  const agent = fakeAgent([COMPLETE({ cost: 0.5, write: { [flag]: "" } })], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--max-cost", "0.5", "--on-complete", "cleanup"], {
    cwd: repo,
    env: { ...agent.env, ...hangEnv(flag, hangOn) },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor(`git to hang on ${hangOn} in the cleanup`, () => existsSync(`${flag}.hanging`), 30_000, { whileRunning: proc });
  proc.kill("SIGKILL");
  await proc.exited;
  const sleeper = Number(readFileSync(`${flag}.hanging`, "utf8"));
  if (isAlive(sleeper)) process.kill(sleeper, "SIGKILL"); // the hung git's sleep, orphaned by SIGKILL
  rmSync(flag);
  expect(readState(repo)).toMatchObject({ status: "stopped", stop_reason: "budget", completing: "cleanup" });
  return { repo, env: agent.env };
}

describe("the runner killed during the cleanup after a budget stop", () => {
  test("after HEAD moved back: `start` finishes the cleanup, refuses to spend more, and the state says the cleanup is done", async () => {
    const { repo, env } = await killedInCleanup("-d"); // `update-ref -d refs/heads/ralph/…`: HEAD is already on main
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Finished the previous loop's interrupted cleanup");
    expect(r.stderr).toContain("its budget is used up");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
    expect(readState(repo)).toMatchObject({ status: "stopped", stop_reason: "budget", completing: null, completion: "cleanup" });
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).not.toContain("has not finished");
    expect(status.stdout).not.toContain("died during its completion step"); // it was finished since
    expect(status.stdout).not.toContain("its work on ralph/");
  }, 60_000);

  test("before HEAD moved: nothing was cleaned, and `stop` does not record a cleanup", async () => {
    const { repo } = await killedInCleanup("wt-loop: back to main"); // `symbolic-ref -m … HEAD refs/heads/main`
    const r = await wtLoop(["stop"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("continuing");
    expect(git(repo, "branch", "--show-current")).toMatch(/^ralph\//);
    const s = readState(repo);
    expect(s).toMatchObject({ status: "stopped", stop_reason: "budget", completing: null });
    expect(s.completion).not.toBe("cleanup");
  }, 60_000);
});
