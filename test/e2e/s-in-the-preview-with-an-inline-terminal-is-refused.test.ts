// S in the preview means "in a new window". With "terminal": "inline" in the user's config, `start`
// would run the whole loop in this terminal behind the selection screen, deaf to its keys: S is
// refused with a line that points to R, and no loop is started.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, fakeAgent, testPath } from "../helpers/cli.ts";
import { stateIfAny } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("S with an inline terminal", () => {
  test("is refused with a line pointing to R; the keys still answer; nothing was started", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    const agent = fakeAgent([COMPLETE()], tempDir("fake-agent-"));
    const xdg = baseEnv().XDG_CONFIG_HOME!;
    mkdirSync(join(xdg, "wt-loop"), { recursive: true });
    writeFileSync(join(xdg, "wt-loop/config.json"), JSON.stringify({ "on-complete": "keep", terminal: "inline" }));
    const env = { ...agent.env, PATH: testPath({ openspec: true }), TERM: "xterm-256color", XDG_CONFIG_HOME: xdg, OPENSPEC_TELEMETRY: "0" };
    const pane = tmux.start(main, env, keep(WT_LOOP));
    await shows(tmux, pane, "›◆ add-greeting");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Tasks\s+Scenarios\s+Prompt/);
    tmux.keys(pane, "S");
    await shows(tmux, pane, "Not in a new window");
    expect(tmux.capture(pane).replace(/[│\s]+/g, " ")).toContain("Press R to run it here");
    tmux.keys(pane, "Escape"); // closes the message
    await tmux.waitFor("the message closed", () => !tmux.capture(pane).includes("Not in a new window"));
    tmux.keys(pane, "Escape"); // back to the list
    await shows(tmux, pane, "›◆ add-greeting");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    expect(stateIfAny(main)).toBeNull();
  }, 120_000);
});
