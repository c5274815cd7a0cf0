// A runner whose terminal goes away (its tmux window killed) while it asks the end question, or
// while a story runs, ends within seconds: the question answered keep (as an unattended one is),
// the state final with its completion, the lock gone — never a process left spinning on a dead
// terminal, holding the worktree. The loop screen and `--plain` alike; `monitor` and the selection
// screen likewise end with their terminal.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lockPath } from "../../src/state/paths.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { CLI, fakeAgent, testPath } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait.ts";

const GONE_MS = 10_000;
let tmux: Tmux;
const started: number[] = [];
afterEach(() => {
  tmux?.kill();
  // A runner that outlived its terminal (the bug) must not outlive the test too.
  for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

const envFor = (steps: object[]) => {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  const env = { ...agent.env, PATH: testPath(), TERM: "xterm-256color", XDG_CONFIG_HOME: tempDir("xdg-") };
  return { env, dir: agent.dir };
};
const wtLoopLine = (args: string) => `${process.execPath} ${CLI} ${args}`;

/** CPU time (user + system, in clock ticks) `pid` has used so far. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]);
}

/** Kills the pane's window (the terminal hangs up), then waits for `pid` to end; says how busy it was if it did not. */
async function hangUpAndWait(pane: string, pid: number, what: string): Promise<void> {
  started.push(pid);
  tmux.tmux("kill-window", "-t", pane);
  try {
    await waitFor(`${what} (pid ${pid}) to end after its terminal went away`, () => !isAlive(pid), GONE_MS);
  } catch (err) {
    const before = cpuTicks(pid);
    await Bun.sleep(2000);
    throw new Error(`${(err as Error).message}; it used ${cpuTicks(pid) - before} ticks of CPU in the next 2 s`);
  }
}

const question = /what should happen to the loop's branch\?/i;

function expectAnsweredKeep(repo: string): void {
  expect(readState(repo)).toMatchObject({ status: "done", completion: "keep", completion_pending: false, runner_pid: null });
  expect(readState(repo).completion_message).toBeString();
  expect(existsSync(lockPath(repo))).toBe(false);
}

describeWithTmux("a runner whose terminal goes away while the end question waits", () => {
  for (const [name, args] of [
    ["the loop screen's dialog", "run --on-complete ask"],
    ["the --plain prompt", "run --plain --on-complete ask"],
  ] as const) {
    test(`${name}: answered keep, the state final, the lock released, the runner gone within seconds`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
      const { env } = envFor([COMPLETE()]);
      const pane = tmux.start(repo, env, wtLoopLine(args));
      await tmux.waitFor("the question", () => question.test(tmux.capture(pane)), 45_000);
      const s = readState(repo);
      expect(s).toMatchObject({ status: "done", completion_pending: true });
      await hangUpAndWait(pane, s.runner_pid, "the runner");
      expectAnsweredKeep(repo);
    }, 90_000);
  }
});

describeWithTmux("a loop started in a tmux window whose window is killed while it asks", () => {
  test("start's window: the runner answers keep and is gone; the terminal `start` ran in is untouched", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const { env } = envFor([COMPLETE()]);
    const home = tmux.start(repo, env, `${wtLoopLine("start --on-complete ask")}; sleep 600`);
    const s = await tmux.waitFor("the question", () => readState(repo).completion_pending && readState(repo), 45_000);
    const window = await tmux.waitFor("the loop's window", () => tmux.panes().find((p) => p.id !== home && question.test(tmux.capture(p.id))));
    await hangUpAndWait(window.id, s.runner_pid, "the runner");
    expectAnsweredKeep(repo);
    expect(tmux.panes().map((p) => p.id)).toEqual([home]);
  }, 90_000);
});

describeWithTmux("a runner that ignores SIGHUP (trap '' HUP) still notices its terminal went away", () => {
  test("--plain, the question waiting: its input ends, the question is answered keep, the runner is gone", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const { env } = envFor([COMPLETE()]);
    const pane = tmux.start(repo, env, `trap '' HUP; ${wtLoopLine("run --plain --on-complete ask")}`);
    await tmux.waitFor("the question", () => question.test(tmux.capture(pane)), 45_000);
    await hangUpAndWait(pane, readState(repo).runner_pid, "the runner");
    expectAnsweredKeep(repo);
  }, 90_000);

  test("--plain with no terminal input, mid-story: its next write fails (EIO), the loop stops, keep, the runner is gone", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ hangSec: 300 }]);
    const pane = tmux.start(repo, env, `trap '' HUP; ${wtLoopLine("run --plain --on-complete ask")} < /dev/null`);
    const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).agent_pid && readState(repo));
    started.push(s.agent_pid);
    await hangUpAndWait(pane, s.runner_pid, "the runner");
    expect(readState(repo)).toMatchObject({ status: "stopped", completion: "keep", runner_pid: null, agent_pid: null });
    expect(existsSync(lockPath(repo))).toBe(false);
  }, 90_000);
});

describeWithTmux("a runner whose terminal goes away mid-story", () => {
  for (const [name, args] of [
    ["the loop screen", "run --on-complete ask"],
    ["--plain", "run --plain --on-complete ask"],
  ] as const) {
    test(`${name}: the loop stops, its agent with it, the question is not asked of the dead terminal (keep), the runner is gone`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env, dir } = envFor([{ hangSec: 300 }]);
      const pane = tmux.start(repo, env, wtLoopLine(args));
      const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).agent_pid && readState(repo));
      started.push(s.agent_pid);
      await hangUpAndWait(pane, s.runner_pid, "the runner");
      expect(readState(repo)).toMatchObject({ status: "stopped", completion: "keep", completion_pending: false, runner_pid: null, agent_pid: null });
      expect(existsSync(lockPath(repo))).toBe(false);
      expect(isAlive(s.agent_pid)).toBe(false);
    }, 90_000);
  }
});

describeWithTmux("a follower whose terminal goes away", () => {
  for (const [name, args] of [
    ["monitor's screen", "monitor"],
    ["monitor --plain", "monitor --plain"],
    ["the selection screen", ""],
  ] as const) {
    test(`${name} ends; the loop it follows goes on`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env, dir } = envFor([{ hangSec: 300 }]);
      tmux.start(repo, env, wtLoopLine("run --plain --on-complete keep"));
      const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).agent_pid && readState(repo));
      started.push(s.runner_pid, s.agent_pid);
      const pane = tmux.window(repo, env, `${wtLoopLine(args)}; echo "EXIT=$?"`);
      const shows = name === "the selection screen" ? /First story/ : /First story|Story 1|1\. First/;
      await tmux.waitFor(`${name} to show the loop`, () => shows.test(tmux.capture(pane)), 45_000);
      const follower = Number(tmux.tmux("display", "-p", "-t", pane, "#{pane_pid}").trim());
      const own = await waitFor("the follower's process", () => childOf(follower), 10_000);
      await hangUpAndWait(pane, own, name);
      expect(isAlive(s.runner_pid)).toBe(true);
      expect(readState(repo).status).toBe("running");
    }, 90_000);
  }
});

/** The one child of `pid` (the shell of a pane runs wt-loop as its child). */
function childOf(pid: number): number | null {
  const text = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(pid)])
    .stdout.toString()
    .trim();
  return text ? Number(text.split("\n")[0]) : null;
}
