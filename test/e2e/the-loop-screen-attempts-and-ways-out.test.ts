// The loop screen in a real terminal (tmux), continued: choosing an attempt in the Prompt tab, an
// error nobody caught in the screen's code, and `run` opening its screen while the loop is prepared
// (what the preparation says is printed once the terminal is back). The compiled binary, as the
// user runs it.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { stateIfAny } from "../helpers/fixtures.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux, type Tmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();
const { envFor } = compiled;
let tmux: Tmux;
/** The shell line: the exit code and the terminal's settings printed, then an interactive shell on the same terminal. */
const thenShell = (cmd: string) => `${cmd}; echo "EXIT=$?"; stty -a; exec sh -i`;
const flag = (t: Tmux, pane: string, f: string) => t.tmux("display", "-p", "-t", pane, `#{${f}}`).trim();
const exited = (t: Tmux, pane: string) => t.waitFor("the exit code", () => /EXIT=(\d+)/.exec(t.capture(pane))?.[1]).then(Number);
/** The terminal as a shell wants it: the main screen, the cursor shown, no mouse reporting, echo and line editing on, a shell that runs what is typed. */
async function usable(t: Tmux, pane: string): Promise<void> {
  const after = () => /EXIT=\d+([\s\S]*)/.exec(t.capture(pane))?.[1] ?? "";
  const stty = await t.waitFor("stty's settings", () => /icanon/.test(after()) && after());
  expect(stty).toMatch(/(^|\s)echo\s/);
  expect(stty).toMatch(/(^|\s)icanon\s/);
  expect(flag(t, pane, "alternate_on")).toBe("0");
  expect(flag(t, pane, "cursor_flag")).toBe("1");
  expect(flag(t, pane, "mouse_any_flag")).toBe("0");
  t.keys(pane, "echo typed-$((6*7))", "Enter");
  // Echo on: the typed line shows as typed; the shell ran it.
  await t
    .waitFor("the shell echoing and running a command", () => t.capture(pane).includes("echo typed-$((6*7))") && /^typed-42$/m.test(t.capture(pane)))
    .catch((e) => {
      throw new Error(`${(e as Error).message}\nthe pane:\n${t.capture(pane)}`);
    });
}

describeWithTmux("the loop screen: attempts and ways out", () => {
  test("the Prompt tab shows the latest attempt; [ goes to the first, named in the tab; ] back", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ promise: "FAILED: the parser is missing" }, { messages: ["second try at story one"], hangSec: 300 }]);
    const pane = tmux.start(repo, env, thenShell("wt-loop run --on-complete keep --max-retries 3"));
    await tmux.waitFor("the second attempt running", () => existsSync(join(dir, "prompt-2.txt")) && tmux.capture(pane).includes("second try at story one"));
    tmux.keys(pane, "5");
    await tmux.waitFor("the Prompt tab at attempt 2", () => tmux.capture(pane).includes("Prompt · attempt 2 (2/2)"));
    expect(tmux.capture(pane)).toContain("Previous attempt failed");
    tmux.keys(pane, "[");
    await tmux.waitFor("the Prompt tab at attempt 1", () => tmux.capture(pane).includes("Prompt · attempt 1 (1/2)"));
    expect(tmux.capture(pane)).not.toContain("Previous attempt failed");
    tmux.keys(pane, "]");
    await tmux.waitFor("back at attempt 2", () => tmux.capture(pane).includes("Prompt · attempt 2 (2/2)"));
    tmux.keys(pane, "?");
    await tmux.waitFor("the help names the keys", () => tmux.capture(pane).includes("the story's previous / next attempt"));
    tmux.keys(pane, "Space"); // any key closes the help (Escape then q would read as Alt-q)
    await tmux.waitFor("the help closed", () => !tmux.capture(pane).includes("the story's previous / next attempt"));
    tmux.keys(pane, "q");
    await tmux.waitFor("the result's banner", () => tmux.capture(pane).includes("r result"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(4);
    await usable(tmux, pane);
  }, 90_000);

  test("an error nobody caught in the screen's code (its test switch, WT_LOOP_TEST_SCREEN_THROW) gives the terminal back, then says what it was", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ messages: ["working"], hangSec: 300 }], { WT_LOOP_TEST_SCREEN_THROW: "x" });
    const pane = tmux.start(repo, env, thenShell("wt-loop run --on-complete keep"));
    await tmux.waitFor("the agent running on the screen", () => existsSync(join(dir, "prompt-1.txt")) && tmux.capture(pane).includes("working"));
    expect(flag(tmux, pane, "alternate_on")).toBe("1");
    tmux.keys(pane, "x");
    expect(await exited(tmux, pane)).toBe(1);
    await usable(tmux, pane);
    expect(tmux.capture(pane)).toContain("WT_LOOP_TEST_SCREEN_THROW=x was pressed");
  }, 60_000);

  test("run opens its screen while the loop is prepared: a plan with nothing to do closes it and says so on the main screen", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Done already\n- [x] 1.1 Made\n" });
    const { env } = envFor([]);
    const pane = tmux.start(repo, env, thenShell("wt-loop run --on-complete keep"));
    expect(await exited(tmux, pane)).toBe(0);
    await usable(tmux, pane);
    expect(tmux.capture(pane)).toMatch(/nothing|already|complete/i);
    expect(stateIfAny(repo)).toBeNull();
  }, 60_000);
});
