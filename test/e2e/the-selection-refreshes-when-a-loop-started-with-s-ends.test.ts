// S starts the loop in a window of its own and the selection stays open here. When that loop ends, the
// selection shows it — the loop's row and the work left — by itself, without a key pressed.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, fakeAgent, testPath } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("the selection while a loop started with S runs elsewhere", () => {
  test("its end shows on the selection by itself: the loop's row done, the change it finished gone from the work", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const go = join(tempDir("go-"), "go");
    // The first iteration waits for `go`: the selection is back on screen, untouched, before the loop moves.
    const agent = fakeAgent([COMPLETE({ waitFile: go }), COMPLETE()], tempDir("fake-agent-"));
    const xdg = baseEnv().XDG_CONFIG_HOME!;
    mkdirSync(join(xdg, "wt-loop"), { recursive: true });
    writeFileSync(join(xdg, "wt-loop/config.json"), JSON.stringify({ "on-complete": "keep" }));
    const env = { ...agent.env, PATH: testPath({ openspec: true }), TERM: "xterm-256color", XDG_CONFIG_HOME: xdg, OPENSPEC_TELEMETRY: "0" };
    const pane = tmux.start(main, env, keep(WT_LOOP));
    await shows(tmux, pane, /›◆ add-greeting\s+1\/3/);
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Tasks\s+Scenarios\s+Prompt/);
    tmux.keys(pane, "S");
    await shows(tmux, pane, "Started a loop in repo (tmux).");
    tmux.keys(pane, "Escape"); // closes the message: the last key pressed
    await shows(tmux, pane, /▶ repo\s+running/);
    expect(tmux.capture(pane)).not.toMatch(/add-greeting\s+3\/3/); // its second story is not done
    writeFileSync(go, "");
    await tmux.waitFor("the loop in the other window to end done", () => readState(main).status === "done", 90_000);
    // The change it finished is no longer work to do: it leaves the list.
    await shows(tmux, pane, (s) => /✓ repo\s+done/.test(s) && !s.includes("add-greeting") && s.includes("1 piece of work here"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 180_000);
});
