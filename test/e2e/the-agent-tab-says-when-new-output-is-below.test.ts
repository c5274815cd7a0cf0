// Scrolled up in the Agent tab while the agent writes on: a line at the bottom says new output came
// below (as a chat or a pager does); End, or scrolling back to the bottom, follows it again and the line goes.
import { afterEach, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const TASKS = "# Tasks\n\n## 1. Only story\n- [ ] 1.1 do it\n";
const MARK = "▼ new output below";
const FILLERS = Array.from({ length: 60 }, (_, i) => `filler message ${i}`);

describeWithTmux("the Agent tab scrolled up while the agent writes", () => {
  test("new output shows the marker at the bottom; End follows it again and the marker goes", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS });
    const go = join(tempDir("go-"), "go");
    // The agent writes 60 lines, then waits for `go` before it writes its last message.
    const { env } = agentEnv([{ messages: FILLERS, waitFile: go, final: "the LATE message", promise: "COMPLETE", tick: "story" }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    tmux.tmux("resize-window", "-t", pane, "-x", "100", "-y", "30");
    await shows(tmux, pane, "filler message 59");
    tmux.keys(pane, "PageUp");
    await shows(tmux, pane, (s) => !s.includes("filler message 59"));
    // Nothing new yet: no marker.
    expect(tmux.capture(pane)).not.toContain(MARK);
    writeFileSync(go, "");
    await shows(tmux, pane, MARK);
    expect(tmux.capture(pane)).not.toContain("the LATE message"); // still scrolled up: the new line is below
    tmux.keys(pane, "End");
    await shows(tmux, pane, (s) => s.includes("the LATE message") && !s.includes(MARK));
    // Scrolled up again, then down to the bottom by pages: following again, no marker.
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "PageUp");
    await shows(tmux, pane, (s) => !s.includes("the LATE message"));
    expect(tmux.capture(pane)).not.toContain(MARK); // nothing came since
    tmux.keys(pane, "PageDown", "PageDown", "PageDown");
    await shows(tmux, pane, "the LATE message");
    expect(tmux.capture(pane)).not.toContain(MARK);
    expect(existsSync(go)).toBe(true);
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
