// After the loop ends, its screen stays what it was — every story, tab and attempt can still be read —
// with the result as a banner, and `q` leaves. After a cleanup, the result says where you are (back on
// main, the work uncommitted, the loop's branch deleted). The same for a finished loop followed later.
import { afterEach, expect, test } from "bun:test";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, restored, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const STEPS = [
  COMPLETE({ messages: ["story one is done, notes written"], write: { "notes.txt": "first notes\n" } }),
  COMPLETE({ messages: ["story two is done as well"], write: { "more.txt": "more\n" } }),
];

describeWithTmux("the end of a loop on its screen", () => {
  test("run, then cleanup: a banner says you are back on main with the work uncommitted; stories, tabs and attempts stay browsable; q leaves", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = agentEnv(STEPS);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete ask --max 9`));
    await shows(tmux, pane, "what should happen to the loop's branch?");
    tmux.keys(pane, "Down");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, /Back on main/);
    const end = tmux.capture(pane);
    expect(end).toMatch(/deleted ralph\//);
    expect(end).not.toMatch(/branch ralph\//); // the deleted branch is not offered as where the work is
    expect(end).toMatch(/q leave/);
    // Browsable: the first story's messages, its Files tab, then the second story's.
    tmux.keys(pane, "Up");
    await shows(tmux, pane, "story one is done, notes written");
    tmux.keys(pane, "3");
    await shows(tmux, pane, "notes.txt");
    tmux.keys(pane, "Down");
    await shows(tmux, pane, "more.txt");
    expect(tmux.capture(pane)).toMatch(/Back on main/); // the banner stays
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    restored(tmux, pane);
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(readState(repo).completion).toBe("cleanup");
  }, 120_000);

  test("monitor of a loop that has ended: the same screen, browsable, its result in the banner; q leaves with the loop's code", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = agentEnv(STEPS);
    const run = tmux.start(repo, env, keep(`${WT_LOOP} run --plain --on-complete keep --max 9`));
    expect(await exited(tmux, run)).toBe(0);
    const mon = tmux.window(repo, env, keep(`${WT_LOOP} monitor`));
    await shows(tmux, mon, /Loop done/);
    tmux.keys(mon, "Up");
    await shows(tmux, mon, "story one is done, notes written");
    tmux.keys(mon, "Down");
    await shows(tmux, mon, "story two is done as well");
    tmux.keys(mon, "q");
    expect(await exited(tmux, mon)).toBe(0);
    restored(tmux, mon);
  }, 120_000);
});
