// A consumer of the agent's output (parser, renderer, event log) that fails is a harness failure:
// an Error event and a stuck loop naming it, never a silent no_signal.
import { expect, test } from "bun:test";
import { runEngine } from "../helpers/engine.ts";
import { makeRepo } from "../helpers/repo.ts";

test("a consumer of the agent's output that throws ends the loop stuck with the error, not no_signal", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. One\n- [ ] 1.1 a\n" });
  const r = await runEngine(repo, ["echo working\nsleep 300\n"], {
    onEvent: (e) => {
      if (e.type === "StoryEvent") throw new Error("event log: disk full");
    },
  });
  expect(r.state.status).toBe("stuck");
  expect(r.state.error).toContain("event log: disk full");
  expect(r.state.agent_pid).toBeNull();
  expect(r.events.some((e) => e.type === "Error" && e.message.includes("event log: disk full"))).toBe(true);
  expect(r.state.iterations.some((i) => i.outcome === "no_signal")).toBe(false);
});
