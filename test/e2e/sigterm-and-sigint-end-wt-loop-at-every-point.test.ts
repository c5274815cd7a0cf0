// SIGTERM and SIGINT — what `timeout`, systemd, `kill` and a shell send — end wt-loop at every
// point, through a real terminal: the end summary, the completion question, a pause, a usage-limit
// wait, the selection and preview screens, `monitor`. Where a loop runs it stops gracefully first
// and the process exits with the loop's code; a second signal forces. Before, a runner at its end
// screen ignored SIGTERM for good (issue 30: `timeout 60 wt-loop start --terminal inline` was alive 7
// minutes later).
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { lockPath } from "../../src/state/paths.ts";
import { baseEnv, CLI, fakeAgent, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait.ts";

const WT_LOOP = `"${process.execPath}" "${CLI}"`;
const EXIT_MS = 20_000;
let tmux: Tmux;
const leftover: number[] = [];
afterEach(() => {
  tmux?.kill();
  for (const pid of leftover.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

function envFor(steps: object[], extra: Record<string, string> = {}) {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  return { env: { ...agent.env, PATH: testPath(), TERM: "xterm-256color", ...extra }, dir: agent.dir };
}

/** wt-loop in `pane`: the one child of the pane's shell. */
async function wtLoopPid(pane: string): Promise<number> {
  const shell = Number(tmux.tmux("display", "-p", "-t", pane, "#{pane_pid}").trim());
  const pid = await tmux.waitFor("wt-loop's process", () => {
    const text = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(shell)])
      .stdout.toString()
      .trim();
    return text ? Number(text.split("\n")[0]) : null;
  });
  leftover.push(pid);
  return pid;
}

/** Sends `sig` to wt-loop in `pane`; its exit code, and the terminal given back (not in raw mode). */
async function signalAndExit(pane: string, pid: number, sig: NodeJS.Signals): Promise<number> {
  process.kill(pid, sig);
  const code = await tmux.exitCode(pane, EXIT_MS).catch((e) => {
    throw new Error(`${(e as Error).message}\nThe pane:\n${tmux.capture(pane).replace(/ +\n/g, "\n")}`);
  });
  expect(tmux.sttyAfter(pane)).toMatch(/(^|\s)icanon(\s|$)/m);
  return code;
}

describeWithTmux("SIGTERM and SIGINT end wt-loop at every point", () => {
  for (const [sig, how] of [
    ["SIGTERM", "run"],
    ["SIGINT", "start --terminal inline"],
  ] as const) {
    test(`the end summary of \`${how}\` (a person attached): ${sig} ends it with the loop's code`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env } = envFor([COMPLETE(), COMPLETE()]);
      const pane = tmux.start(repo, env, `${WT_LOOP} ${how} --on-complete keep`);
      const pid = await wtLoopPid(pane);
      await tmux.waitFor(
        "the loop to be over",
        () => readState(repo).status === "done" && readState(repo).completion === "keep" && !existsSync(lockPath(repo)),
        60_000,
      );
      expect(isAlive(pid)).toBe(true); // the summary waits for a key
      expect(await signalAndExit(pane, pid, sig)).toBe(0);
    }, 90_000);
  }

  for (const [sig, args] of [
    ["SIGINT", "run --on-complete ask"],
    ["SIGINT", "run --plain --on-complete ask"],
    ["SIGTERM", "run --plain --on-complete ask"],
  ] as const) {
    test(`the completion question (\`${args}\`): ${sig} answers keep and ends it with the loop's code`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env } = envFor([COMPLETE(), COMPLETE()]);
      const pane = tmux.start(repo, env, `${WT_LOOP} ${args}`);
      const pid = await wtLoopPid(pane);
      await tmux.waitFor("the question", () => readState(repo).completion_pending === true, 60_000);
      expect(await signalAndExit(pane, pid, sig)).toBe(0);
      expect(readState(repo)).toMatchObject({ status: "done", completion: "keep", completion_pending: false, runner_pid: null });
      expect(existsSync(lockPath(repo))).toBe(false);
    }, 90_000);
  }

  test("a paused loop: SIGTERM stops it, exit 4 (stopped)", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const gate = join(tempDir("gate-"), "go");
    const { env, dir } = envFor([COMPLETE({ waitFile: gate }), COMPLETE()]);
    const pane = tmux.start(repo, env, `${WT_LOOP} run --on-complete keep`);
    const pid = await wtLoopPid(pane);
    await tmux.waitFor("the agent", () => existsSync(join(dir, "prompt-1.txt")));
    expect((await wtLoop(["pause"], { cwd: repo })).code).toBe(0);
    writeFileSync(gate, "");
    await tmux.waitFor("the loop to pause", () => readState(repo).status === "paused", 60_000);
    expect(await signalAndExit(pane, pid, "SIGTERM")).toBe(4);
    expect(readState(repo)).toMatchObject({ status: "stopped", runner_pid: null });
    expect(existsSync(lockPath(repo))).toBe(false);
  }, 90_000);

  test("a usage-limit wait: SIGINT stops it, exit 4 (stopped)", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    // Another loop of this repository noted a usage limit of the agent for an hour: this one waits for it.
    mkdirSync(join(repo, ".git/wt-loop/limits"), { recursive: true });
    writeFileSync(
      join(repo, ".git/wt-loop/limits/claude.json"),
      JSON.stringify({ until: new Date(Date.now() + 3600_000).toISOString(), reason: "usage limit" }),
    );
    const { env, dir } = envFor([COMPLETE()]);
    const pane = tmux.start(repo, env, `${WT_LOOP} run --on-complete keep`);
    const pid = await wtLoopPid(pane);
    await tmux.waitFor("the loop to wait", () => readState(repo).waiting, 60_000);
    expect(await signalAndExit(pane, pid, "SIGINT")).toBe(4);
    expect(readState(repo)).toMatchObject({ status: "stopped", waiting: null, runner_pid: null });
    expect(existsSync(join(dir, "prompt-1.txt"))).toBe(false);
  }, 90_000);

  test("a running loop: the first SIGTERM stops it gracefully, a second forces (exit 130)", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    // An agent that ignores SIGTERM: the graceful stop waits the 2 s grace before it kills it.
    const { env, dir } = envFor([{ hangSec: 300, ignoreTerm: true }]);
    const pane = tmux.start(repo, env, `${WT_LOOP} run --plain --on-complete keep`);
    const pid = await wtLoopPid(pane);
    await tmux.waitFor("the agent to ignore SIGTERM", () => existsSync(join(dir, "ignoring-term")) && readState(repo).agent_pid);
    const agent = readState(repo).agent_pid;
    leftover.push(agent);
    process.kill(pid, "SIGTERM");
    await tmux.waitFor("the stop to begin", () => tmux.capture(pane).includes("Stopping (SIGTERM)"));
    expect(await signalAndExit(pane, pid, "SIGTERM")).toBe(130);
    expect(readState(repo)).toMatchObject({ status: "stopped", reason: "Force-quit by the user", runner_pid: null });
    expect(isAlive(agent)).toBe(false);
  }, 90_000);

  for (const [sig, code, where] of [
    ["SIGTERM", 143, "the selection"],
    ["SIGINT", 130, "the preview"],
  ] as const) {
    test(`${where} screen: ${sig} ends it (${code}), the terminal given back`, async () => {
      tmux = new Tmux();
      const { main } = selectionRepo();
      const env = { PATH: testPath({ openspec: true }), TERM: "xterm-256color", XDG_CONFIG_HOME: baseEnv().XDG_CONFIG_HOME!, OPENSPEC_TELEMETRY: "0" };
      const pane = tmux.start(main, env, WT_LOOP);
      const pid = await wtLoopPid(pane);
      await tmux.waitFor("the selection", () => tmux.capture(pane).includes("Work and loops"), 60_000);
      if (where === "the preview") {
        tmux.keys(pane, "Enter");
        await tmux.waitFor("the preview", () => /Tasks\s+Scenarios\s+Prompt/.test(tmux.capture(pane)), 60_000);
      }
      expect(await signalAndExit(pane, pid, sig)).toBe(code);
      expect(tmux.tmux("display", "-p", "-t", pane, "#{alternate_on}").trim()).toBe("0");
    }, 90_000);
  }

  test("a loop run from the preview (R): SIGTERM stops it and ends wt-loop with the loop's code (4), not back to the selection", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const agent = fakeAgent([{ hangSec: 300 }], tempDir("fake-agent-"));
    const env = {
      ...agent.env,
      PATH: testPath({ openspec: true }),
      TERM: "xterm-256color",
      XDG_CONFIG_HOME: baseEnv().XDG_CONFIG_HOME!,
      OPENSPEC_TELEMETRY: "0",
    };
    const pane = tmux.start(main, env, WT_LOOP);
    const pid = await wtLoopPid(pane);
    await tmux.waitFor("the selection", () => tmux.capture(pane).includes("›◆ add-greeting"), 60_000);
    tmux.keys(pane, "Enter");
    await tmux.waitFor("the preview", () => /Tasks\s+Scenarios\s+Prompt/.test(tmux.capture(pane)), 60_000);
    tmux.keys(pane, "R");
    await tmux.waitFor("the agent", () => existsSync(join(agent.dir, "prompt-1.txt")) && readState(main).agent_pid, 60_000);
    leftover.push(readState(main).agent_pid);
    expect(await signalAndExit(pane, pid, "SIGTERM")).toBe(4);
    expect(readState(main)).toMatchObject({ status: "stopped", completion: "keep", runner_pid: null });
  }, 120_000);

  test("monitor following a running loop: SIGTERM ends it (143), the loop goes on; at the loop's end, SIGINT ends it with the loop's code", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const gate = join(tempDir("gate-"), "go");
    const { env, dir } = envFor([COMPLETE({ waitFile: gate }), COMPLETE()]);
    tmux.start(repo, env, `${WT_LOOP} run --plain --on-complete keep`);
    await tmux.waitFor("the agent", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).runner_pid);
    const runner = readState(repo).runner_pid;
    leftover.push(runner);
    const first = tmux.window(repo, env, `${WT_LOOP} monitor`);
    const monitor = await wtLoopPid(first);
    await tmux.waitFor("monitor to show the loop", () => tmux.capture(first).includes("First story"), 60_000);
    expect(await signalAndExit(first, monitor, "SIGTERM")).toBe(143);
    expect(isAlive(runner)).toBe(true);

    const second = tmux.window(repo, env, `${WT_LOOP} monitor`);
    const again = await wtLoopPid(second);
    await tmux.waitFor("monitor to show the loop", () => tmux.capture(second).includes("First story"), 60_000);
    writeFileSync(gate, "");
    await waitFor("the loop to be done", () => readState(repo).status === "done" && !isAlive(runner), 60_000);
    // The end view waits for a key; a signal ends it with the loop's code.
    await tmux.waitFor("monitor to see the end", () => /done/.test(tmux.capture(second)));
    expect(await signalAndExit(second, again, "SIGINT")).toBe(0);
  }, 120_000);
});
