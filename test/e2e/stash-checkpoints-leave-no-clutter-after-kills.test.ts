// Stash checkpoints and SIGKILL (a laptop losing power): every `ralph:` entry a loop stores is
// findable by the next run, even when the runner dies right after `git stash store` and before its
// state said so; a plain `wt-loop start` to done leaves no `ralph:` entry, the user's own stash is
// untouched, and the end message counts what is really in `git stash list`.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { fakeAgent, spawnWtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { AGENT_FILE, expectIntact, hangEnv, ralphStashes, record, userWorkRepo } from "../checkpoint/user-work.ts";

const mine: number[] = []; // processes this test started that a fix might not end: killed after each test
afterEach(() => {
  for (const pid of mine.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

/** Starts a stash-mode loop and SIGKILLs its runner once `ready` holds; returns the dead runner's pid. */
async function killedRun(repo: string, steps: object[], env: Record<string, string>, ready: () => boolean, what: string): Promise<number> {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--checkpoint", "stash"], {
    cwd: repo,
    env: { ...agent.env, ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor(what, ready, 30_000, { whileRunning: proc });
  proc.kill("SIGKILL");
  await proc.exited;
  return proc.pid;
}

test("killed between `git stash store` and recording it: the next plain start finds the entry and ends with none left", async () => {
  const repo = userWorkRepo();
  const before = record(repo);
  const flag = join(tempDir("hang-"), "hang.flag");
  writeFileSync(flag, "");
  // The store happens, then the fake git hangs: the runner has not yet seen it stored.
  await killedRun(
    repo,
    [COMPLETE()],
    { ...hangEnv(flag, "store"), FAKE_GIT_HANG_AFTER: "1" },
    () => existsSync(`${flag}.hanging`),
    "git stash store to have stored",
  );
  mine.push(Number(readFileSync(`${flag}.hanging`, "utf8")));
  rmSync(flag);
  expect(ralphStashes(repo)).toHaveLength(1); // the window is real: the entry is in the list

  const again = await runLoop(repo, [COMPLETE()]);
  expect([again.code, again.state.status]).toEqual([0, "done"]);
  expect(ralphStashes(repo)).toEqual([]);
  expect(again.state.completion_message).toBe("No checkpoint stash left.");
  expectIntact(repo, before);
}, 90_000);

test("killed while the agent runs, then restarts: the end message counts every entry left, and a start to done drops them all", async () => {
  const repo = userWorkRepo();
  const before = record(repo);
  const started = join(tempDir("agent-"), "started");
  const runner = await killedRun(
    repo,
    [{ hangSec: 300, write: { [join(repo, AGENT_FILE)]: "killed attempt\n", [started]: "" } }],
    {},
    () => existsSync(started),
    "the agent to start",
  );
  expect(readState(repo)).toMatchObject({ status: "running", runner_pid: runner });
  mine.push(readState(repo).agent_pid!);
  expect(ralphStashes(repo)).toHaveLength(1);

  // A restart that ends stuck keeps its entries: the message names as many as the list holds.
  const stuck = await runLoop(repo, [{ promise: "FAILED: no", write: { [join(repo, AGENT_FILE)]: "attempt\n" } }], ["--max-retries", "1"]);
  expect([stuck.code, stuck.state.status, stuck.state.completion]).toEqual([2, "stuck", "keep"]);
  const left = ralphStashes(repo);
  expect(left).toHaveLength(2);
  expect(stuck.state.completion_message).toContain(`Kept ${left.length} checkpoint stash(es)`);

  // The kept entries are a finished loop's: a new loop leaves them; cleanup of its own drops only its own.
  const done = await runLoop(repo, [COMPLETE()], ["--on-complete", "cleanup"]);
  expect([done.code, done.state.status]).toEqual([0, "done"]);
  expect(ralphStashes(repo)).toEqual(left);
  expect(done.state.completion_message).toContain("2 checkpoint stash(es) of earlier loops stay");
  expectIntact(repo, before);
}, 120_000);

// Random kills at every phase, with both strategies: kill-9-anywhere-then-start-to-done.test.ts.
