// `run` on a terminal opens its screen as soon as nothing more can be asked, and runs doctor's checks
// after the screen's first frame (issue 35). A check that refuses must still be said as it always was:
// the screen taken down, the terminal back, doctor's line on it, exit 1, no loop state written.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { loopPaths } from "../../src/state/paths.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();

describeWithTmux("a run refused on a terminal says why after its screen", () => {
  test("an agent command that is not installed: the screen goes, doctor's line is on the terminal, exit 1, nothing written", async () => {
    const tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = compiled.envFor([]);
    const pane = tmux.start(repo, env, `wt-loop run --agent command --agent-cmd 'no-such-agent-h35 --go'; echo "EXIT=$?"; sleep 60`);
    await tmux.waitFor("the exit code", () => /EXIT=\d+/.test(tmux.capture(pane)));
    const screen = tmux.capture(pane);
    expect(screen).toContain("The agent command 'no-such-agent-h35' was not found. Check --agent-cmd");
    expect(screen).toMatch(/EXIT=1\b/);
    expect(screen).not.toContain("Stories"); // the loop screen is gone: the terminal shows what was printed
    expect(existsSync(loopPaths(repo).state)).toBe(false);
  }, 90_000);
});
