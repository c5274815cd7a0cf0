// At 80×24 the first `q` on an agent that ignores SIGTERM says how to force the stop: the footer's
// message keeps "press q twice more" however the rest of the sentence is cut (issue 35: footers at 80
// columns keep their key hints).
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

describeWithTmux("q on the loop screen at 80 columns", () => {
  test("the first q's message keeps how to force-quit in the footer", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = agentEnv([{ messages: ["working"], hangSec: 300, ignoreTerm: true }]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "working");
    await tmux.waitFor("the agent to ignore SIGTERM", () => existsSync(join(dir, "ignoring-term")));
    tmux.keys(pane, "q");
    await shows(tmux, pane, "Stopping (q)");
    const footer = tmux
      .capture(pane)
      .split("\n")
      .filter((r) => r.trim())
      .at(-1)!;
    expect(footer).toContain("Stopping (q)");
    expect(footer).toContain("q twice more");
    // The stop settles (the agent killed after its grace); the screen stays until q leaves it.
    await shows(tmux, pane, "Loop stopped");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(4);
  }, 120_000);
});
