// `/` with a long query at 80 columns: the footer says first whether it was found (and how to find the
// next), then the query, so the cut at the screen's width takes the query's end, not the verdict.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const LONG = "the agent wrote this sentence so that a search for all of it runs past the footer";
const footerOf = (s: string) =>
  s
    .split("\n")
    .filter((r) => r.trim())
    .at(-1)!;

describeWithTmux("a long search at 80 columns", () => {
  test("found or not, the footer's verdict and keys come before the query", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([{ messages: [LONG], waitFile: hold, tick: "story", promise: "COMPLETE" }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 9`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "the agent wrote");
    tmux.keys(pane, "/");
    await shows(tmux, pane, "Find in the Agent tab");
    tmux.tmux("send-keys", "-t", pane, "-l", LONG);
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, (s) => !s.includes("Find in the Agent tab"));
    await shows(tmux, pane, (s) => footerOf(s).includes("/ Enter finds the next"));
    tmux.keys(pane, "/");
    await shows(tmux, pane, "Find in the Agent tab");
    tmux.tmux("send-keys", "-t", pane, "-l", `${LONG} but never written`);
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, (s) => footerOf(s).includes("Not in this story's Agent tab"));
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
