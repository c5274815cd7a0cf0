// `?` on the loop screen in a 60-column terminal: a description too long for its row wraps under the
// description column, never back into the key column, where it would read as another key (issue 35:
// popups wrap, one width-aware wrap everywhere).
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("the key help in a narrow terminal", () => {
  test("at 60×24 each wrapped description goes on under its own column", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([{ messages: ["working on it"], waitFile: hold, tick: "story", promise: "COMPLETE" }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 9`));
    tmux.tmux("resize-window", "-t", pane, "-x", "60", "-y", "24");
    await shows(tmux, pane, "working on it");
    tmux.keys(pane, "?");
    await shows(tmux, pane, "Keys");
    const rows = tmux.capture(pane).split("\n");
    const at = (text: string) => rows.find((r) => r.includes(text)) ?? "";
    // Where the descriptions start: the column of "follow the running story again" (a row of its own).
    const column = at("follow the running story again").indexOf("follow");
    expect(column).toBeGreaterThan(10);
    // Continuation rows of wrapped descriptions start there too: blank before it inside the box.
    for (const tail of ["force-quits)", "you do)"]) {
      const row = at(tail);
      expect(row).not.toBe("");
      const inner = row.slice(row.indexOf("│") + 1);
      const lead = /^ */.exec(inner)![0].length;
      expect(row.indexOf("│") + 1 + lead).toBe(column);
    }
    tmux.keys(pane, "Escape");
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
