// `wt-loop run` on a terminal with more stories left than --max allows iterations: the loop cannot
// finish, and the screen says so while it runs (before, the warning was held behind the screen and
// printed only once the loop had ended, hours later). `+` raises the limit and the line goes.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const TASKS = `# Tasks\n\n${Array.from({ length: 12 }, (_, i) => `## ${i + 1}. Story ${i + 1}\n- [ ] ${i + 1}.1 Do it\n`).join("\n")}`;

describeWithTmux("more stories than the iteration limit", () => {
  test("the loop screen says the loop cannot finish; + raises the limit and the line goes", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS });
    const hold = join(tempDir("hold-"), "go");
    const { env } = agentEnv([{ messages: ["working on it"], waitFile: hold }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep --max 5`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "working on it");
    await shows(tmux, pane, "cannot finish");
    const row = tmux
      .capture(pane)
      .split("\n")
      .find((r) => r.includes("cannot finish"))!;
    expect(row).toContain("12 stories left, 5 iterations left");
    expect(row).toContain("+ adds 10"); // its key, whole at 80 columns
    tmux.keys(pane, "+"); // 15 iterations: enough for the 12
    await shows(tmux, pane, "iteration 1/15");
    await shows(tmux, pane, (s) => !s.includes("cannot finish"));
    tmux.keys(pane, "q");
    writeFileSync(hold, "");
    await shows(tmux, pane, "Loop stopped");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(4);
  }, 120_000);
});
