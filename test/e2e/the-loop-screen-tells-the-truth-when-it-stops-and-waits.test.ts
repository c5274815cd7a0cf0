// Small truths of the loop screen on a real terminal: once a stop has settled the footer no longer says
// "Stopping…" (the banner says how the loop ended), and `monitor` in a worktree with no loop says it waits
// for one, as its line stream does, instead of a loop "starting" at iteration 0/?.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const footerOf = (screen: string) =>
  screen
    .split("\n")
    .filter((r) => r.trim())
    .at(-1) ?? "";

describeWithTmux("the loop screen's small truths", () => {
  test("q stops the loop; once it is over the footer has its keys again, not the stop's message", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = agentEnv([{ hangSec: 300 }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    await tmux.waitFor("the agent", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).agent_pid, 60_000);
    tmux.keys(pane, "q");
    await shows(tmux, pane, "Loop stopped");
    const footer = footerOf(tmux.capture(pane));
    expect(footer).not.toContain("Stopping");
    expect(footer).toContain("q leave");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(4); // stopped
  }, 120_000);

  test("monitor with no loop in the worktree says it waits for one; q leaves with 0", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = agentEnv([]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} monitor`));
    await shows(tmux, pane, "Waiting for loop to start…");
    const s = tmux.capture(pane);
    expect(s.split("\n")[0]).toContain("Waiting for loop to start…");
    expect(s).not.toContain("iteration 0/?");
    expect(s).not.toContain("starting");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
