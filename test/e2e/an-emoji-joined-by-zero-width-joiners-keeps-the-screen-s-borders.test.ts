// A family emoji (three emoji joined by zero-width joiners) in a story's title and in the agent's message, at 80
// columns in a terminal that lays text out per code point (tmux 3.x; the renderer then measures with wcwidth):
// the screen measures it as the terminal shows it, so no text runs over a box's border.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const FAMILY = "👨‍👩‍👧";
const TASKS = `# Tasks\n\n## 1. The ${FAMILY} family story\n- [ ] 1.1 Do it\n`;

describeWithTmux("a ZWJ emoji at 80 columns", () => {
  test("the story list and the diff keep their borders; no row runs past the terminal's edge", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([
      {
        ...COMPLETE({ messages: [`the ${FAMILY} family is here, then more words after it`], write: { "notes.txt": `the ${FAMILY} family\n` } }),
        waitFile: hold,
      },
    ]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "family is here");
    // The story list's box: its right border on every row between its corners (the title's row lost it when the
    // screen counted the emoji 2 columns and the terminal 6: the title ran over the border).
    const rows = tmux.capture(pane).split("\n");
    const top = rows.findIndex((r) => r.startsWith("┌─ Stories"));
    const bottom = rows.findIndex((r) => r.startsWith("└"));
    expect(top).toBeGreaterThanOrEqual(0);
    expect(bottom).toBeGreaterThan(top + 3);
    for (const row of rows.slice(top + 1, bottom)) expect({ row, borders: row.split("│").length - 1 }).toEqual({ row, borders: 2 });
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    await shows(tmux, pane, "family story");
    // tmux joins a row it wrapped (capture -J): no row of the end screen is wider than the terminal, counted as tmux
    // lays text out (each code point's own width).
    for (const row of tmux.capture(pane).split("\n"))
      expect({ row, wide: [...row.trimEnd()].reduce((n, c) => n + Bun.stringWidth(c), 0) <= 80 }).toEqual({ row, wide: true });
    // The diff over the screen: the row showing the emoji has its box's two borders, as the rows around it.
    tmux.keys(pane, "3");
    await shows(tmux, pane, "Files · attempt 1");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, "+the");
    const diff = tmux.capture(pane).split("\n");
    const at = diff.findIndex((r) => r.includes("+the"));
    const borders = (r: string) => r.split("│").length - 1;
    expect({ row: diff[at], borders: borders(diff[at]!) }).toEqual({ row: diff[at], borders: borders(diff[at - 1]!) });
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, (x) => !x.includes("Esc closes"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
