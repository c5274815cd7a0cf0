// A loop nobody watches still ends (issue 37). On a machine without a display `start` runs the loop
// in a detached tmux session. When the loop ends — done, stuck, or stopped from another terminal —
// its runner must not sit at an end screen nobody sees, holding the worktree: within seconds there is
// no runner, no tmux session and no lock, and a second `start` in the same worktree begins. The
// default `--on-complete ask` is answered keep, as for any loop nobody can answer.
import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { lockPath } from "../../src/state/paths.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { fakeAgent, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { HAS_TMUX } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait.ts";

// A private tmux socket folder: `start` runs plain `tmux new-session` (no -L), which then never
// touches the user's own server; only the server in this folder is killed.
const socketDir = tempDir("tmux-sock-");
const tmuxEnv = { ...process.env, TMUX: undefined, TMUX_PANE: undefined, TMUX_TMPDIR: socketDir };
const leftover: number[] = [];
afterEach(() => {
  // A runner that outlived its loop (the defect) must not outlive the test too.
  for (const pid of leftover.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  Bun.spawnSync(["tmux", "kill-server"], { env: tmuxEnv, stderr: "ignore" });
});

const GONE_MS = 15_000;
const SESSION = "wt-loop-repo";

const tmux = (...args: string[]) => Bun.spawnSync(["tmux", ...args], { env: tmuxEnv, stdout: "pipe", stderr: "pipe" });
const hasSession = () => tmux("has-session", "-t", `=${SESSION}`).exitCode === 0;
/** The pane's process: `start` has tmux run `wt-loop run` as the pane's command, so it is the runner. */
const runnerPid = () => Number(tmux("list-panes", "-t", `=${SESSION}`, "-F", "#{pane_pid}").stdout.toString().trim());

/** `start` as typed on a machine without a display: no DISPLAY, no WAYLAND_DISPLAY, not inside tmux. */
async function startUnwatched(repo: string, steps: object[], args: string[] = []) {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  const env = { ...agent.env, PATH: testPath(), TMUX_TMPDIR: socketDir, DISPLAY: undefined, WAYLAND_DISPLAY: undefined };
  const before = existsSync(join(repo, ".claude/loop-state.json")) ? readState(repo).started_at : null;
  const r = await wtLoop(["start", ...args], { cwd: repo, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("(tmux-detached)");
  const pid = await waitFor("the runner in the detached session", () => hasSession() && runnerPid());
  leftover.push(pid);
  await waitFor("the new loop's state", () => readState(repo).started_at !== before && readState(repo));
  return { env, agent, pid };
}

/** Within seconds of the end: no runner, no session, no lock — then a second `start` begins. */
async function expectReleased(repo: string, pid: number, env: Record<string, string | undefined>, more = () => {}): Promise<void> {
  await waitFor(`the runner (pid ${pid}) to exit`, () => !isAlive(pid), GONE_MS);
  await waitFor("the tmux session to be gone", () => !hasSession(), GONE_MS);
  expect(existsSync(lockPath(repo))).toBe(false);
  expect(readState(repo)).toMatchObject({ runner_pid: null, completion_pending: false });
  const first = readState(repo).started_at;
  more();
  const again = await wtLoop(["start", "--on-complete", "keep"], { cwd: repo, env });
  expect(again.stderr).toBe("");
  expect(again.code).toBe(0);
  expect(again.stdout).toContain("Started a loop");
  const second = await waitFor("the second loop to begin", () => readState(repo).started_at !== first && readState(repo));
  expect(second.started_at).not.toBe(first);
  leftover.push(await waitFor("the second runner", () => hasSession() && runnerPid()));
}

describe.skipIf(!HAS_TMUX)("a loop nobody watches still ends", () => {
  test("done with the default --on-complete ask: the question answered keep, then no runner, session or lock; a second start begins", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, pid } = await startUnwatched(repo, [COMPLETE(), COMPLETE()]);
    await waitFor("the loop to be done, its question answered keep", () => readState(repo).status === "done" && readState(repo).completion === "keep", 60_000);
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
    // A story more to do, as a user adds one: the second start has work.
    await expectReleased(repo, pid, env, () => appendFileSync(join(repo, "tasks.md"), "\n## 3. Third story\n- [ ] 3.1 Make d\n"));
  }, 120_000);

  test("a session of the loop's name is still there (someone reads an earlier summary): the next start opens its own", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    expect(tmux("new-session", "-d", "-s", SESSION, "sleep 600").exitCode).toBe(0);
    const agent = fakeAgent([COMPLETE(), COMPLETE()], tempDir("fake-agent-"));
    const env = { ...agent.env, PATH: testPath(), TMUX_TMPDIR: socketDir, DISPLAY: undefined, WAYLAND_DISPLAY: undefined };
    const r = await wtLoop(["start"], { cwd: repo, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Attach with: tmux attach -t ${SESSION}-2`);
    await waitFor("the loop to be done", () => readState(repo).status === "done" && readState(repo).completion === "keep", 60_000);
    await waitFor("its session to be gone", () => tmux("has-session", "-t", `=${SESSION}-2`).exitCode !== 0, GONE_MS);
    expect(hasSession()).toBe(true); // the other one is left alone
  }, 120_000);

  test("stuck: no runner, session or lock; a second start begins", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, pid } = await startUnwatched(repo, [{ promise: "FAILED: no" }], ["--max-retries", "1"]);
    await waitFor(
      "the loop to be stuck, its question answered keep",
      () => readState(repo).status === "stuck" && readState(repo).completion === "keep",
      60_000,
    );
    await expectReleased(repo, pid, env);
  }, 120_000);

  test("stopped from another terminal: no runner, session or lock; a second start begins", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, agent, pid } = await startUnwatched(repo, [{ hangSec: 300 }]);
    const s = await waitFor("the agent to run", () => existsSync(join(agent.dir, "prompt-1.txt")) && readState(repo).agent_pid && readState(repo));
    leftover.push(s.agent_pid);
    const stop = await wtLoop(["stop"], { cwd: repo, env });
    expect(stop.code).toBe(0);
    expect(readState(repo)).toMatchObject({ status: "stopped", completion: "keep" });
    await expectReleased(repo, pid, env);
    expect(isAlive(s.agent_pid)).toBe(false);
  }, 120_000);
});
