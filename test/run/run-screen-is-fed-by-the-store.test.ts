// `run`'s screen shows what the runner holds, handed over in memory by its store (issue 31): it does not
// follow its own event log. Only an agent's messages are read back from the log, by their byte range, while
// they are on screen (the memory budget).
import { describe, expect, test } from "bun:test";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LoopOptions } from "../../src/setup/options.ts";
import { prepareLoop, writeStarting } from "../../src/setup/prepare.ts";
import { runPrepared } from "../../src/run/runner.ts";
import { runModel } from "../../src/run/on-screen.ts";
import { ScreenView } from "../../src/screen/screen-view.ts";
import type { Screen } from "../../src/screen/renderer.ts";
import type { Frame } from "../../src/screen/frame.ts";
import { loopPaths } from "../../src/state/paths.ts";
import { makeRepo, TASKS_2_STORIES, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

/** An agent (`--agent command`) that ticks every box, says hello and claims COMPLETE. */
const TICK_ALL = `sed -i 's/- \\[ \\]/- [x]/' tasks.md && echo hello from the agent && echo '<promise>COMPLETE</promise>'`;

/** The terminal's side of the screen: nothing is drawn; the test reads the model's frames itself. */
const noTerminal = (): Screen => ({ renderer: null, redraw() {}, show() {}, onKey() {}, onGone() {}, title() {}, close: async () => {} }) as unknown as Screen;

const frameText = (f: Frame) =>
  [...f.header, f.footer, ...f.body.lines]
    .map((l) => l.map((s) => s.text).join(""))
    .concat(f.list.rows.map((r) => `${r.glyph} ${r.title} ${r.detail}`))
    .join("\n");

describe("run's screen and the store", () => {
  test("the screen shows the loop from the store's events in memory, not by reading the event log back", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const opts = LoopOptions.parse({ agent: "command", agentCmd: TICK_ALL, terminal: "inline", onComplete: "keep", max: 5 });
    const prepared = await prepareLoop({ path: repo, name: "repo" }, opts, () => {});
    const { lock } = await writeStarting(prepared, "here");
    const model = runModel(prepared.state);
    model.resize(100, 30);
    const view = new ScreenView(noTerminal(), model, { mode: "run", statePath: loopPaths(repo).state, worktree: repo });
    try {
      const state = await runPrepared(prepared.state, prepared.source, { view, lock });
      expect(state.status).toBe("done");
    } finally {
      view.dispose();
      lock.release();
    }
    // With the log out of the screen's reach, it still knows the run: the first story done, its attempt's outcome.
    const log = loopPaths(repo).events;
    renameSync(log, `${log}.away`);
    // (Not drawn here: a message on screen would be read back from the log, gone, and that said.)
    model.key("1");
    const first = model.record.stories.find((s) => s.id === "1");
    expect(first?.status).toBe("done");
    expect(first?.attempts.map((a) => a.outcome)).toEqual(["complete"]);
    // The message on screen is read back from the log by its range, once it can be.
    renameSync(`${log}.away`, log);
    expect(frameText(model.frame(Date.now()))).toContain("hello from the agent");
  }, 60_000);

  test("a git clean -fdx by the agent: the messages shown before it are still read back while the log is gone, and after it is made again", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const dir = tempDir("cleaning-agent-");
    const [cleaned, go] = [join(dir, "cleaned"), join(dir, "go")];
    // Says hello, removes everything ignored (.claude/ with the event log), then waits for the test before going on.
    const agent =
      `echo hello from the agent && git clean -fdxq && : > ${cleaned} && while [ ! -e ${go} ]; do sleep 0.05; done && ` +
      `sed -i 's/- \\[ \\]/- [x]/' tasks.md && echo after the clean && echo '<promise>COMPLETE</promise>'`;
    const opts = LoopOptions.parse({ agent: "command", agentCmd: agent, terminal: "inline", onComplete: "keep", max: 5 });
    const prepared = await prepareLoop({ path: repo, name: "repo" }, opts, () => {});
    const { lock } = await writeStarting(prepared, "here");
    const model = runModel(prepared.state);
    model.resize(100, 30);
    const view = new ScreenView(noTerminal(), model, { mode: "run", statePath: loopPaths(repo).state, worktree: repo });
    const run = runPrepared(prepared.state, prepared.source, { view, lock });
    try {
      await waitFor("the agent's git clean", () => existsSync(cleaned), 30_000);
      expect(existsSync(loopPaths(repo).events)).toBe(false);
      // First drawn now, with the log removed and not yet made again (no event since): read back all the same.
      expect(frameText(model.frame(Date.now()))).toContain("hello from the agent");
      writeFileSync(go, "");
      expect((await run).status).toBe("done");
      model.key("1");
      const text = frameText(model.frame(Date.now()));
      expect(text).toContain("hello from the agent");
      expect(text).not.toContain("no longer in the event log");
    } finally {
      writeFileSync(go, "");
      await run.catch(() => {});
      view.dispose();
      lock.release();
    }
  }, 60_000);
});
