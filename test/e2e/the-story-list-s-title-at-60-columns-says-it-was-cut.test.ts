// At 60 columns the story list's box is too narrow for "Stories (following)": its title is cut with …,
// not torn mid-word ("Stories (followin") as if that were its name (issue 35: one width-aware cut).
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("the story list's title in a narrow terminal", () => {
  test("at 60×24 it ends in … where it is cut", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([{ messages: ["working on it"], waitFile: hold, tick: "story", promise: "COMPLETE" }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 9`));
    tmux.tmux("resize-window", "-t", pane, "-x", "60", "-y", "24");
    await shows(tmux, pane, "working on it");
    // Its box at 60 columns: a frame drawn at the session's first width, before the resize reached the
    // screen, may still be what tmux shows (cut, not redrawn): the row is waited for in the narrow layout.
    const top = (screen: string) => screen.split("\n").find((r) => r.startsWith("┌─ Stories") && r.indexOf("┐") < 30);
    await shows(tmux, pane, (screen) => top(screen) !== undefined);
    expect(top(tmux.capture(pane))).toMatch(/┌─ Stories \([a-z]*… ─*┐/);
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
