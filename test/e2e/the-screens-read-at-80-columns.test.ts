// At 80×24, the size of a default terminal, the screens' text reads: the Agent tab breaks at words, story
// titles of emoji and CJK keep whole characters, the footer keeps `q` and `?` while the loop runs, the key
// help wraps inside its box, and the selection's warning that the openspec CLI is missing leaves its keys.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, testPath } from "../helpers/cli.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

// Placed so that "remember" straddles the Agent tab's 52nd column at 80 columns: cut at the width, it would be torn.
const PROSE = `${"word ".repeat(9)}ab remember to update tasks.md before you say it is complete, and then stop.`;
const TITLE = "🎉 家族の記録 with a family 👨‍👩‍👧 in it";
const TASKS = `# Tasks\n\n## 1. ${TITLE}\n- [ ] 1.1 Do it\n`;

describeWithTmux("the screens at 80×24", () => {
  test("the Agent tab wraps at words, titles keep whole characters, the footer keeps q and ? and the help wraps in its box", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([{ ...COMPLETE({ messages: [PROSE] }), waitFile: hold }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "remember to update");
    const s = tmux.capture(pane);
    const rows = s.split("\n");
    expect(s).not.toMatch(/remem\s*$|^\s*│?\s*ber to/m);
    expect(s).not.toContain("\uFFFD");
    expect(s).toContain("🎉 家族の記録");
    // While the loop runs the footer keeps the keys that leave and list the others.
    const footer = rows.filter((r) => r.trim()).at(-1)!;
    expect(footer).toContain("q stop");
    expect(footer).toContain("? keys");
    tmux.keys(pane, "?");
    await shows(tmux, pane, "Keys");
    const help = tmux.capture(pane);
    // Every help row inside the box: wrapped, not cut at the border.
    expect(help).toContain("stop the loop (completed work is kept;");
    expect(help).toContain("force-quits)");
    tmux.keys(pane, "Escape");
    await shows(tmux, pane, (x) => !x.includes("force-quits)"));
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);

  test("the selection without the openspec CLI: the warning follows the key hints and is said whole in the details", async () => {
    tmux = new Tmux();
    const { main } = selectionRepo();
    expect(existsSync(join(main, "openspec/changes"))).toBe(true);
    const xdg = baseEnv().XDG_CONFIG_HOME!;
    mkdirSync(join(xdg, "wt-loop"), { recursive: true });
    // No openspec on the PATH: wt-loop reads openspec/changes/ itself and says so.
    const pane = tmux.start(main, { PATH: testPath(), TERM: "xterm-256color", XDG_CONFIG_HOME: xdg, OPENSPEC_TELEMETRY: "0" }, keep(WT_LOOP));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "Work and loops");
    await shows(tmux, pane, "openspec CLI is not installed");
    const s = tmux.capture(pane);
    const footer = s
      .split("\n")
      .filter((r) => r.trim())
      .at(-1)!;
    expect(footer).toContain("q quit");
    expect(footer).toContain("? keys");
    expect(footer).toContain("⚠ The openspec");
    // The whole sentence is in the details, wrapped at words.
    expect(s.replace(/[│\s]+/g, " ")).toContain("it counts tasks the way OpenSpec does");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
