// `wt-loop` with no command, on a real terminal (tmux on a private socket), inside a worktree: the
// selection screen, the preview of a change, a loop run from the preview back to the selection, a
// loop of another worktree followed; outside a worktree or through a pipe, the help as before.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, fakeAgent, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startHangingLoop } from "../helpers/fleet.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, tempDir } from "../helpers/repo.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const WT_LOOP = `"${process.execPath}" "${CLI}"`;
const keep = (cmd: string) => `${cmd}; echo "EXIT=$?"; sleep 60`;
const flag = (t: Tmux, pane: string, f: string) => t.tmux("display", "-p", "-t", pane, `#{${f}}`).trim();
const exited = (t: Tmux, pane: string) => t.waitFor("the exit code", () => /EXIT=(\d+)/.exec(t.capture(pane))?.[1], 60_000).then(Number);
const shows = (t: Tmux, pane: string, what: string | RegExp) =>
  t
    .waitFor(`the screen to show ${what}`, () => (typeof what === "string" ? t.capture(pane).includes(what) : what.test(t.capture(pane))), 60_000)
    .catch((e) => {
      throw new Error(`${(e as Error).message}\nThe screen:\n${t.capture(pane).replace(/ +\n/g, "\n")}`);
    });

function terminalEnv(steps: object[] = [COMPLETE()]): Record<string, string> {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  const xdg = baseEnv().XDG_CONFIG_HOME!;
  // The end question answered by the user's config file: the run ends without a dialog.
  mkdirSync(join(xdg, "wt-loop"), { recursive: true });
  writeFileSync(join(xdg, "wt-loop/config.json"), JSON.stringify({ "on-complete": "keep" }));
  return { ...agent.env, PATH: testPath({ openspec: true }), TERM: "xterm-256color", XDG_CONFIG_HOME: xdg, OPENSPEC_TELEMETRY: "0" };
}

describeWithTmux("wt-loop alone on a terminal", () => {
  test("shows the selection; Enter previews the change, Tab switches its tabs, Esc goes back; q quits with the terminal restored", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const pane = tmux.start(main, terminalEnv(), keep(WT_LOOP));
    await shows(tmux, pane, "Work and loops");
    expect(flag(tmux, pane, "alternate_on")).toBe("1");
    const sel = tmux.capture(pane);
    expect(sel).toMatch(/›◆ add-greeting\s+1\/3/);
    expect(sel).toContain("docs/tasks.md");
    expect(sel).toMatch(/other\s+stuck/);
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Tasks\s+Scenarios\s+Prompt/);
    expect(tmux.capture(pane)).toContain("tasks 1/3 · stories 0/2 · 2 scenarios");
    expect(tmux.capture(pane)).toContain("[x] 1.1 Write greet.txt");
    tmux.keys(pane, "Tab");
    await shows(tmux, pane, "Scenario: Greets by name");
    tmux.keys(pane, "Tab");
    await shows(tmux, pane, "## Your story: 1. Greeting (story 1 of 2)");
    tmux.keys(pane, "BTab");
    await shows(tmux, pane, "Scenario: Greets by name");
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, "Work and loops");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    expect(flag(tmux, pane, "alternate_on")).toBe("0");
    expect(flag(tmux, pane, "cursor_flag")).toBe("1");
    expect(flag(tmux, pane, "mouse_any_flag")).toBe("0");
  }, 120_000);

  test("R in the preview runs the loop on the loop screen to done, and its end leads back to the selection", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const pane = tmux.start(main, terminalEnv([COMPLETE({ messages: ["greeted"] })]), keep(WT_LOOP));
    await shows(tmux, pane, "›◆ add-greeting");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Tasks\s+Scenarios\s+Prompt/);
    tmux.keys(pane, "R");
    await shows(tmux, pane, /Agent\s+Tasks\s+Files\s+Verify\s+Prompt/);
    await tmux.waitFor("the loop to end done", () => readState(main).status === "done" && readState(main).completion === "keep", 90_000);
    await shows(tmux, pane, "r result");
    expect(flag(tmux, pane, "alternate_on")).toBe("1");
    tmux.keys(pane, "q");
    await shows(tmux, pane, "Work and loops");
    // The change is finished: the selection lists the loop that did it, and the plain tasks.md.
    const sel = tmux.capture(pane);
    expect(sel).not.toContain("◆ add-greeting");
    expect(sel).toMatch(/✓ repo\s+done/);
    expect(sel).toContain("Loop done: All 2 stories are complete.");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    expect(flag(tmux, pane, "alternate_on")).toBe("0");
  }, 180_000);

  test("Enter on another worktree's running loop follows it; q leaves it running and comes back", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const busy = join(main, "..", "busy");
    git(main, "worktree", "add", "-q", "-b", "busy", busy);
    const loop = await startHangingLoop(busy);
    try {
      const pane = tmux.start(main, terminalEnv(), keep(WT_LOOP));
      await shows(tmux, pane, /▶ busy\s+running/);
      tmux.keys(pane, "Down", "Down", "Enter");
      await shows(tmux, pane, /Agent\s+Tasks\s+Files\s+Verify\s+Prompt/);
      expect(tmux.capture(pane)).toContain("busy");
      tmux.keys(pane, "q");
      await shows(tmux, pane, "Work and loops");
      expect(readState(busy).status).toBe("running");
      tmux.keys(pane, "q");
      expect(await exited(tmux, pane)).toBe(0);
    } finally {
      await loop.stop();
    }
  }, 180_000);

  test("S in the preview starts the loop in a new window and says so over the selection, which lists it", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const pane = tmux.start(main, terminalEnv([COMPLETE()]), keep(WT_LOOP));
    await shows(tmux, pane, "›◆ add-greeting");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Tasks\s+Scenarios\s+Prompt/);
    tmux.keys(pane, "S");
    await shows(tmux, pane, "Started a loop in repo (tmux).");
    await tmux.waitFor("the loop in the new window to end done", () => readState(main).status === "done", 90_000);
    tmux.keys(pane, "Escape"); // closes the message
    await shows(tmux, pane, /✓ repo\s+done/);
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 180_000);

  test("SIGTERM ends the selection with the terminal restored", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const pane = tmux.start(main, terminalEnv(), `${WT_LOOP}; echo "EXIT=$?"; stty -a | grep -o -- "-*icanon"; sleep 60`);
    await shows(tmux, pane, "Work and loops");
    const shell = Number(flag(tmux, pane, "pane_pid"));
    const child = Number(
      Bun.spawnSync(["pgrep", "-P", String(shell)])
        .stdout.toString()
        .trim()
        .split("\n")[0],
    );
    expect(child).toBeGreaterThan(0);
    process.kill(child, "SIGTERM");
    expect(await exited(tmux, pane)).toBe(143);
    expect(flag(tmux, pane, "alternate_on")).toBe("0");
    expect(flag(tmux, pane, "cursor_flag")).toBe("1");
    expect(flag(tmux, pane, "mouse_any_flag")).toBe("0");
    expect(await shows(tmux, pane, /^icanon$/m)).toBe(true); // raw mode undone (raw would show -icanon)
  }, 60_000);

  test("piped (wt-loop | cat), wt-loop alone prints the help", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const pane = tmux.start(main, terminalEnv(), keep(`${WT_LOOP} | cat`));
    expect(await exited(tmux, pane)).toBe(0);
    expect(tmux.capture(pane)).toContain("Run 'wt-loop help <command>' for a command's options.");
    expect(flag(tmux, pane, "alternate_on")).toBe("0");
  }, 60_000);

  test("outside a worktree, wt-loop alone prints the help", async () => {
    tmux = new Tmux();
    const pane = tmux.start(tempDir("not-a-repo-"), terminalEnv(), keep(WT_LOOP));
    expect(await exited(tmux, pane)).toBe(0);
    expect(tmux.capture(pane)).toContain("Run 'wt-loop help <command>' for a command's options.");
  }, 60_000);
});

test("through a pipe, wt-loop alone prints the help", async () => {
  const { main } = selectionRepo();
  const r = await wtLoop([], { cwd: main });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Usage");
  expect(r.stdout).not.toContain("\x1b[?1049h");
});
