// At 80×24, what list and log users reach for: G and g jump to the last and first story, the selected story's
// whole title has a line of its own, and / finds a line in the Agent tab.
import { afterEach, expect, test } from "bun:test";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());

const TITLE = "Stream the agent's messages into the loop screen, readable at any width";
const TASKS = `# Tasks\n\n## 1. First story\n- [ ] 1.1 a\n\n## 2. Second story\n- [ ] 2.1 b\n\n## 3. ${TITLE}\n- [ ] 3.1 c\n`;
const MESSAGES = Array.from({ length: 80 }, (_, i) => (i === 7 ? "the NEEDLE is in message seven" : `filler message ${i}`));

describeWithTmux("keys of lists and logs on the loop screen", () => {
  test("G and g jump to the last and first story, the title line shows it whole, / finds a line of the Agent tab", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS });
    const { env } = agentEnv([COMPLETE({ messages: MESSAGES }), COMPLETE({ messages: ["two"] }), COMPLETE({ messages: ["three"] })]);
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete keep`));
    tmux.tmux("resize-window", "-t", pane, "-x", "80", "-y", "24");
    await shows(tmux, pane, "Loop done");
    tmux.keys(pane, "g");
    await shows(tmux, pane, /^✓ 1\. First story\s*$/m);
    expect(tmux.capture(pane)).not.toContain("the NEEDLE is in message seven"); // the tail is shown, message 7 far above
    tmux.keys(pane, "/");
    await shows(tmux, pane, "Find in the Agent tab");
    tmux.keys(pane, ..."needle");
    tmux.keys(pane, "Enter");
    await shows(tmux, pane, "the NEEDLE is in message seven");
    tmux.keys(pane, "G");
    await shows(tmux, pane, `✓ 3. ${TITLE}`);
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);
});
