// The runner shows a loop only through its View: the events, the titles, the completion question
// and the keys all pass through it, so any view (the line stream, a full screen) sees the same loop.
import { describe, expect, test } from "bun:test";
import { LoopOptions } from "../../src/setup/options.ts";
import { prepareLoop, writeStarting } from "../../src/setup/prepare.ts";
import { runPrepared } from "../../src/run/runner.ts";
import type { Completion, FinalStatus, State } from "../../src/state/schema.ts";
import type { LoopEvent } from "../../src/record/events.ts";
import { git, makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { RecordingView } from "../helpers/recording-view.ts";

/** An agent (`--agent command`) that ticks every box, says hello and claims COMPLETE. */
const TICK_ALL = `sed -i 's/- \\[ \\]/- [x]/' tasks.md && echo hello from the agent && echo '<promise>COMPLETE</promise>'`;
/** An agent that says it is working, then works for a long time. */
const SLOW = "echo working on it; sleep 30";

async function runWith(view: RecordingView, agentCmd: string, extra: Record<string, unknown> = {}): Promise<{ state: State; repo: string }> {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const opts = LoopOptions.parse({ agent: "command", agentCmd, terminal: "inline", onComplete: "keep", max: 5, ...extra });
  const prepared = await prepareLoop({ path: repo, name: "repo" }, opts, (m) => view.warn(m));
  const { lock } = await writeStarting(prepared, "here");
  try {
    return { state: await runPrepared(prepared.state, prepared.source, { view, lock }), repo };
  } finally {
    lock.release();
  }
}

const types = (events: LoopEvent[]) => events.map((e) => (e.type === "StoryEvent" ? `StoryEvent:${e.event.type}` : e.type));

describe("the runner and its view", () => {
  test("every event goes to the view in order, the plan first; the titles show the progress and the ending", async () => {
    const view = new RecordingView();
    const { state } = await runWith(view, TICK_ALL);
    expect(state.status).toBe("done");
    expect(types(view.events)).toEqual([
      "LoopStarted",
      "StoryProgress",
      "StoryEvent:Message",
      "StoryEvent:Message",
      "StoryEvent:Done",
      "IterationEnd",
      "Complete",
    ]);
    expect(view.events[0]).toMatchObject({
      type: "LoopStarted",
      worktree: "repo",
      done_criteria: "tasks",
      max_iterations: 5,
      change: null,
      stories: [
        { id: "1", title: "First story", tasks: 2, done: 0 },
        { id: "2", title: "Second story", tasks: 1, done: 0 },
      ],
    });
    expect(view.events).toContainEqual(expect.objectContaining({ type: "StoryEvent", event: { type: "Message", text: "hello from the agent" } }));
    expect(view.titles).toEqual(["Ralph: repo [1/5]", "Ralph: repo [done]"]);
    expect(view.notices.map(([t]) => t)).toEqual(["Ralph: repo [done]"]); // the final status calls for attention
    expect(view.asked).toEqual([]); // --on-complete keep: nothing to ask
    expect(view.said).toEqual([]);
  }, 60_000);

  test("a view that cannot ask: the question is not asked and the branch is kept", async () => {
    const view = new RecordingView(false);
    const { state } = await runWith(view, TICK_ALL, { onComplete: "ask" });
    expect(view.asked).toEqual([]);
    expect(state.completion).toBe("keep");
  }, 60_000);

  test("the completion question is the view's: its answer is the loop's, the title says it waits, and the keys are handed over", async () => {
    let listeningWhenAsked = null as boolean | null;
    const view: RecordingView = new RecordingView(true, async (status: FinalStatus): Promise<Completion> => {
      listeningWhenAsked = view.listening;
      expect(status).toBe("done");
      return "cleanup";
    });
    const { state, repo } = await runWith(view, TICK_ALL, { onComplete: "ask" });
    expect(view.asked.map((a) => a.status)).toEqual(["done"]);
    expect(listeningWhenAsked).toBe(false);
    expect(state.completion).toBe("cleanup");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(view.titles).toContain("Ralph: repo [done · keep or cleanup?]");
    expect(view.notices.map(([, body]) => body)).toContainEqual(expect.stringContaining("keep or clean up its branch?"));
  }, 60_000);

  test("answered from another terminal (`wt-loop stop --cleanup` sends SIGUSR2): the view's question is aborted", async () => {
    const view = new RecordingView(true, () => {
      // Asked: the answer comes from elsewhere, as `wt-loop stop --cleanup` gives it.
      setTimeout(() => process.kill(process.pid, "SIGUSR2"), 50);
      return new Promise(() => {}); // the view's own prompt is never answered
    });
    const { state } = await runWith(view, TICK_ALL, { onComplete: "ask" });
    expect(view.asked).toHaveLength(1);
    expect(view.asked[0]!.signal.aborted).toBe(true);
    expect(state.completion).toBe("cleanup");
  }, 60_000);

  test("a stop key from the view stops the loop gracefully and the view is told", async () => {
    const view = new RecordingView(false, undefined, (e, v) => {
      if (e.type === "StoryEvent" && e.event.type === "Message") v.press({ kind: "stop", key: "q" });
    });
    const { state } = await runWith(view, SLOW);
    expect(state.status).toBe("stopped");
    expect(view.said[0]).toStartWith("Stopping (q): press q twice more within 3 s to force-quit");
    expect(view.events.at(-1)).toMatchObject({ type: "Complete", status: "stopped" });
    expect(view.titles.at(-1)).toBe("Ralph: repo [stopped]");
  }, 60_000);
});
