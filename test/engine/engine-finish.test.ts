// The end of a loop (engine `finish`), through LoopDeps with real git: the final status, ended_at
// and the Complete event come before the completion question; the answer is recorded after it.
import { describe, expect, test } from "bun:test";
import type { Completion } from "../../src/state/schema.ts";
import { runEngine } from "../helpers/engine.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const ONE = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n";
const DONE = "sed -i 's/- \\[ \\]/- [x]/' tasks.md\necho '<promise>COMPLETE</promise>'\n";

describe("the end of a loop", () => {
  test("status, ended_at and Complete are written before the question; the answer and its message after it", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    let completes = 0;
    let completesAtQuestion = -1;
    const r = await runEngine(repo, [DONE], {
      onEvent: (e) => void (e.type === "Complete" && completes++),
      chooseCompletion: () => ({
        kind: "ask",
        answer: async (): Promise<Completion> => {
          completesAtQuestion = completes;
          return "cleanup";
        },
      }),
    });
    expect(completesAtQuestion).toBe(1); // monitor has its Complete while the question waits
    expect(r.state.status).toBe("done");
    // The state saved just before the question was asked.
    const beforeQuestion = r.saved.find((s) => s.completion_pending)!;
    expect(beforeQuestion).toMatchObject({ status: "done", completion: null, agent_pid: null });
    expect(beforeQuestion.ended_at).not.toBeNull();
    expect(beforeQuestion.runner_pid).toBe(process.pid); // the runner still holds the loop while it asks
    const complete = r.events.findIndex((e) => e.type === "Complete");
    expect(complete).toBeGreaterThan(-1);
    expect(r.events[complete]).toMatchObject({ status: "done", completion: null });
    expect(r.state).toMatchObject({ completion: "cleanup", completion_pending: false, runner_pid: null, ended_at: beforeQuestion.ended_at });
    expect(r.state.completion_message).toBeString();
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });

  test("without a question the completion runs first and Complete names where the work is", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const r = await runEngine(repo, [DONE]);
    expect(r.saved.some((s) => s.completion_pending)).toBe(false);
    expect(r.events.at(-1)).toMatchObject({ type: "Complete", completion: "keep", branch: "ralph/repo" });
    expect(r.state).toMatchObject({ completion: "keep", runner_pid: null });
  });

  // The stop cancels git calls under way; the completion that follows it must run all the same.
  test.each(["branch", "stash"] as const)("a loop stopped during its agent run still finishes its cleanup (%s checkpoints)", async (checkpoint) => {
    const repo = makeRepo({ "tasks.md": ONE });
    const r = await runEngine(repo, ["echo started; sleep 30"], {
      checkpoint,
      onEvent: (e, abort) => void (e.type === "StoryEvent" && abort()),
      chooseCompletion: () => ({ kind: "now", choice: "cleanup" }),
    });
    expect(r.state).toMatchObject({ status: "stopped", completion: "cleanup", error: null });
    expect(r.state.completion_message).not.toContain("Completion failed");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "stash", "list")).toBe("");
  });
});
