// At 80×24, on the Files tab of a story with an attempt, the tab row ("Files · attempt 1 (1/1)") still
// names every tab: Prompt is not cut to "P"; at 60 columns the active tab's label is cut instead (issue 35:
// text that reads at 80 columns).
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("the tab row at 80 columns", () => {
  test("the Files tab's attempt label leaves Verify and Prompt whole, at 80 and at 60 columns", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([COMPLETE({ write: { "a.txt": "a\n" } }), COMPLETE({ messages: ["second story"], waitFile: hold })]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 9`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "second story");
    tmux.keys(pane, "Up");
    tmux.keys(pane, "3");
    await shows(tmux, pane, "Files · attempt 1 (1/1)");
    const row = tmux
      .capture(pane)
      .split("\n")
      .find((r) => r.includes("Files · attempt 1 (1/1)"))!;
    expect(row).toMatch(/Verify\s+Prompt\s*$/);
    // At 60 columns the active tab's label gives way (cut with …), not the tabs after it.
    tmux.tmux("resize-window", "-t", pane, "-x", "60", "-y", "24");
    // Waited for by the tab row's own cut label: until the screen redraws, tmux shows the 80-column frame
    // rewrapped to 60, whose rows mix the header, the list and an old tab row.
    const narrowRow = (s: string) => s.split("\n").find((r) => /Agent.*Files · …/.test(r));
    await shows(tmux, pane, (s) => narrowRow(s) !== undefined);
    expect(narrowRow(tmux.capture(pane))).toMatch(/Verify\s+Prompt\s*$/);
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
