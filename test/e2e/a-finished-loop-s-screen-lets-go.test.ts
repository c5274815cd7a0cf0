// After a loop ends on its full screen, the summary is there for a person, never for nobody: the
// worktree is free while it shows; with nobody attached to the tmux session the runner exits at once
// with the loop's code; a person who detaches, or never comes back (the bound), lets it go too; the
// question is answered keep when the last client detaches. Once the screen is left, the end box the
// line stream prints stays on the normal screen (issue 30) — for `run`, `monitor` and
// `start --terminal inline`.
import { afterEach, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { lockPath } from "../../src/state/paths.ts";
import { END_WAIT_VAR } from "../../src/term/end-wait.ts";
import { CLI, fakeAgent, testPath } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait.ts";

const WT_LOOP = `"${process.execPath}" "${CLI}"`;
const EXIT_MS = 20_000;
let tmux: Tmux;
afterEach(() => tmux?.kill());

function envFor(steps: object[], extra: Record<string, string> = {}) {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  return { env: { ...agent.env, PATH: testPath(), TERM: "xterm-256color", ...extra }, dir: agent.dir };
}

/** The loop over: its final state written, its completion done, the lock gone. */
const over = (repo: string, status: string) => () => readState(repo).status === status && readState(repo).completion === "keep" && !existsSync(lockPath(repo));

/** The end box the line stream prints, on the normal screen (not the alternate one). */
function expectEndBox(pane: string, status: string): void {
  expect(tmux.tmux("display", "-p", "-t", pane, "#{alternate_on}").trim()).toBe("0");
  const shown = tmux.capture(pane);
  expect(shown).toContain(`╭─ Loop ${status}`);
  expect(shown).toMatch(/\d+\/\d+ stories complete · \d+ iterations?/);
  expect(shown).toContain("The work is on ralph/repo");
}

describeWithTmux("a finished loop's screen lets go", () => {
  for (const [status, steps, extra, code] of [
    ["done", [COMPLETE(), COMPLETE()], "", 0],
    ["stuck", [{ promise: "FAILED: no" }], "--max-retries 1", 2],
  ] as const) {
    test(`nobody attached: \`run\` exits by itself at the end, ${status}, with the loop's code (${code})`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env } = envFor([...steps]);
      const pane = tmux.start(repo, env, `${WT_LOOP} run --on-complete ask ${extra}`, { watched: false });
      expect(await tmux.exitCode(pane, 60_000)).toBe(code);
      expect(readState(repo)).toMatchObject({ status, completion: "keep", completion_pending: false, runner_pid: null });
      expect(existsSync(lockPath(repo))).toBe(false);
    }, 90_000);
  }

  test("nobody attached, --plain: the question is answered keep, not left open", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE(), COMPLETE()]);
    const pane = tmux.start(repo, env, `${WT_LOOP} run --plain --on-complete ask`, { watched: false });
    expect(await tmux.exitCode(pane, 60_000)).toBe(0);
    expect(readState(repo)).toMatchObject({ status: "done", completion: "keep", completion_pending: false });
    expect(tmux.capture(pane)).not.toContain("What should happen to the loop's branch?");
  }, 90_000);

  test("a person attached: the summary waits with the worktree already free, then goes by itself after the bound; the end box stays", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE(), COMPLETE()], { [END_WAIT_VAR]: "4" });
    const pane = tmux.start(repo, env, `${WT_LOOP} run --on-complete keep`);
    await tmux.waitFor("the loop to be over", over(repo, "done"), 60_000);
    // The lock is free while the summary still shows: the exit has not happened yet.
    expect(tmux.hasExited(pane)).toBe(false);
    expect(tmux.tmux("display", "-p", "-t", pane, "#{alternate_on}").trim()).toBe("1");
    expect(await tmux.exitCode(pane, EXIT_MS)).toBe(0);
    expectEndBox(pane, "done");
  }, 90_000);

  test("a person attached who detaches while the summary shows: the runner exits within seconds", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE(), COMPLETE()]);
    const pane = tmux.start(repo, env, `${WT_LOOP} run --on-complete keep`);
    await tmux.waitFor("the loop to be over", over(repo, "done"), 60_000);
    expect(tmux.hasExited(pane)).toBe(false);
    tmux.detach(pane);
    expect(await tmux.exitCode(pane, EXIT_MS)).toBe(0);
  }, 90_000);

  for (const args of ["run --on-complete ask", "run --plain --on-complete ask"]) {
    test(`\`${args}\`: the last client detaches while the question waits — answered keep, the runner exits`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env } = envFor([COMPLETE(), COMPLETE()]);
      const pane = tmux.start(repo, env, `${WT_LOOP} ${args}`);
      await tmux.waitFor("the question", () => readState(repo).completion_pending === true, 60_000);
      const runner = readState(repo).runner_pid;
      tmux.detach(pane);
      expect(await tmux.exitCode(pane, EXIT_MS)).toBe(0);
      expect(readState(repo)).toMatchObject({ status: "done", completion: "keep", completion_pending: false, runner_pid: null });
      expect(isAlive(runner)).toBe(false);
      expect(existsSync(lockPath(repo))).toBe(false);
    }, 90_000);
  }

  for (const how of ["run", "start --terminal inline"]) {
    test(`\`${how}\`: q on the summary leaves, and the end box stays on the normal screen`, async () => {
      tmux = new Tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env } = envFor([COMPLETE(), COMPLETE()]);
      const pane = tmux.start(repo, env, `${WT_LOOP} ${how} --on-complete keep`);
      await tmux.waitFor("the loop to be over", over(repo, "done"), 60_000);
      tmux.keys(pane, "q");
      expect(await tmux.exitCode(pane, EXIT_MS)).toBe(0);
      expectEndBox(pane, "done");
    }, 90_000);
  }

  test("`monitor`: after the loop it follows ends, q leaves and the end box stays on the normal screen", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const gate = join(tempDir("gate-"), "go");
    const { env, dir } = envFor([COMPLETE({ waitFile: gate }), COMPLETE()]);
    tmux.start(repo, env, `${WT_LOOP} run --plain --on-complete keep`);
    await tmux.waitFor("the agent", () => existsSync(join(dir, "prompt-1.txt")));
    const pane = tmux.window(repo, env, `${WT_LOOP} monitor`);
    await tmux.waitFor("monitor to show the loop", () => tmux.capture(pane).includes("First story"), 60_000);
    writeFileSync(gate, "");
    await waitFor("the loop to be over", over(repo, "done"), 60_000);
    await tmux.waitFor("monitor to see the end", () => /done/.test(tmux.capture(pane)));
    tmux.keys(pane, "q");
    expect(await tmux.exitCode(pane, EXIT_MS)).toBe(0);
    expectEndBox(pane, "done");
  }, 120_000);
});
