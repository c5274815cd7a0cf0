// A loop in a tmux window that a person is attached to, but that nobody looks at, ends while
// `--on-complete ask` waits on its question. The end is a fact at once (status, ended_at, Complete,
// monitor's exit); the waiting question shows in status and the title, blocks a new start, and
// `wt-loop stop` answers it. (With nobody attached at all the question is answered keep at once:
// a-loop-nobody-watches-still-ends.test.ts.)
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SLOW_STOP_VAR } from "../../src/control/stop-presses.ts";
import { hasOwnRunner } from "../../src/proc/pid.ts";
import { CLI, fakeAgent, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { Tmux } from "../helpers/tmux.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let server: Tmux | null = null;
afterEach(() => server?.kill());

/** `start` typed in a tmux window somebody is attached to: the loop opens in a new window of that session. */
async function startWaiting() {
  const tmux = (server = new Tmux());
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const agent = fakeAgent([COMPLETE(), COMPLETE()], tempDir("fake-agent-"));
  // PATH as testPath() gives it: an earlier test file may have put node_modules/.bin (the real `claude`) first on this process's PATH.
  const env = { ...agent.env, PATH: testPath(), TERM: "xterm-256color" };
  const home = tmux.start(repo, env, `${process.execPath} ${CLI} start; sleep 600`);
  const s = await waitFor(
    "the question to wait",
    () => {
      const s = readState(repo);
      return s.completion_pending && s;
    },
    45_000,
  );
  expect(tmux.capture(home)).toContain("Started a loop in repo (tmux)");
  return { tmux, repo, env, s };
}

describe("a question nobody answers in its window is answered by stop", () => {
  test("the end is final at once; status, title and start say the question waits; stop answers keep and ends the runner", async () => {
    const { tmux, repo, env, s } = await startWaiting();
    expect(s.status).toBe("done");
    expect(s.ended_at).not.toBeNull();
    expect(hasOwnRunner(s)).toBe(true);
    const events = readFileSync(join(repo, ".claude/loop-events.jsonl"), "utf8");
    expect(events).toContain('"type":"Complete"');

    const monitor = await wtLoop(["monitor"], { cwd: repo, env, timeoutMs: 20_000 });
    expect(monitor.code).toBe(0);
    expect(monitor.stdout).toContain("Loop done");

    const status = await wtLoop(["status"], { cwd: repo, env });
    expect(status.stdout).toContain("done · waiting for the completion question");
    expect(status.stdout).toContain("wt-loop stop --cleanup");
    await waitFor(
      "the title to ask",
      () => tmux.panes().some((p) => p.window === "Ralph: repo [done · keep or cleanup?]" || p.title === "Ralph: repo [done · keep or cleanup?]"),
      45_000,
    );

    const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("completion question is waiting");
    expect(readState(repo).started_at).toBe(s.started_at);

    const stop = await wtLoop(["stop"], { cwd: repo, env });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("answered keep");
    expect(stop.stdout).toContain("The loop is done");
    expect(stop.stdout).not.toContain("Still stopping");
    expect(hasOwnRunner(s)).toBe(false);
    const after = readState(repo);
    expect(after).toMatchObject({ status: "done", completion: "keep", completion_pending: false, runner_pid: null, ended_at: s.ended_at });
    expect(after.completion_message).toBeString();
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
  }, 120_000);

  test("stop --cleanup answers cleanup: back on the original branch", async () => {
    const { repo, env, s } = await startWaiting();
    const stop = await wtLoop(["stop", "--cleanup"], { cwd: repo, env });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("answered cleanup");
    expect(hasOwnRunner(s)).toBe(false);
    expect(readState(repo)).toMatchObject({ status: "done", completion: "cleanup", completion_pending: false, runner_pid: null });
    expect(git(repo, "branch", "--show-current")).toBe(s.original_branch);
  }, 120_000);

  test("stop --force ends a runner whose question waits: the loop stays done, the question is cleared", async () => {
    const { repo, env, s } = await startWaiting();
    const stop = await wtLoop(["stop", "--force"], { cwd: repo, env });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain("Killed the loop");
    expect(hasOwnRunner(s)).toBe(false);
    expect(readState(repo)).toMatchObject({ status: "done", completion_pending: false, runner_pid: null, ended_at: s.ended_at });
  }, 120_000);

  test('q in the window: the question follows the stop, with no "Still stopping" under it; stop from elsewhere answers it', async () => {
    const tmux = new Tmux();
    try {
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const agent = fakeAgent([{ hangSec: 300 }], tempDir("fake-agent-"));
      // The slow-stop hint comes 300 ms after a stop that has not finished, not 5 s.
      const env = { ...agent.env, PATH: testPath(), TERM: "xterm-256color", [SLOW_STOP_VAR]: "300" };
      const pane = tmux.start(repo, env, `${process.execPath} ${CLI} start --terminal inline`);
      await tmux.waitFor("the agent", () => existsSync(join(agent.dir, "prompt-1.txt")) && readState(repo).agent_pid);
      tmux.keys(pane, "q");
      await tmux.waitFor("the question", () => tmux.capture(pane).includes("what should happen to the loop's branch?"));
      expect(readState(repo)).toMatchObject({ status: "stopped", completion_pending: true });
      // A hint still due when the question shows would come under it: the stop is over, so it must not.
      await Bun.sleep(1500);
      const question = tmux.capture(pane);
      expect(question.slice(question.indexOf("what should happen to the loop's branch?"))).not.toContain("Still stopping");
      const stop = await wtLoop(["stop"], { cwd: repo });
      expect(stop.stdout).toContain("answered keep");
      expect(await tmux.exitCode(pane)).toBe(4);
      expect(readState(repo)).toMatchObject({ status: "stopped", completion: "keep", completion_pending: false, runner_pid: null });
    } finally {
      tmux.kill();
    }
  }, 120_000);
});
