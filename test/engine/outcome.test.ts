import { describe, expect, test } from "bun:test";
import type { AgentRun } from "../../src/agents/run-agent.ts";
import { ZERO_TOKENS } from "../../src/state/schema.ts";
import { findPromise } from "../../src/agents/promise.ts";
import { classify } from "../../src/engine/outcome.ts";

const run = (over: Partial<AgentRun> & { final?: string; isError?: boolean }): AgentRun => ({
  done:
    over.final === undefined
      ? null
      : {
          type: "Done",
          final_text: over.final,
          turns: 1,
          tokens: ZERO_TOKENS,
          cost_usd: null,
          is_error: over.isError ?? false,
          errors: over.isError ? ["boom"] : [],
        },
  promise: over.final === undefined ? null : findPromise(over.final),
  ending: null,
  unavailable: null,
  exitCode: 0,
  end: "exit",
  durationMs: 1,
  ...over,
});

describe("classify (SPEC §5 table)", () => {
  test("complete", () => expect(classify(run({ final: "ok <promise>COMPLETE</promise>" }), 45)).toEqual({ outcome: "complete" }));
  test("failed carries the reason", () =>
    expect(classify(run({ final: "<promise>FAILED: no db</promise>" }), 45)).toEqual({ outcome: "failed", reason: "no db" }));
  test("no_signal: exit without promise, non-zero exit, missing result, error result", () => {
    expect(classify(run({ final: "done" }), 45).outcome).toBe("no_signal");
    expect(classify(run({ exitCode: 1 }), 45)).toMatchObject({ outcome: "no_signal", reason: expect.stringContaining("exited with code 1") });
    expect(classify(run({}), 45)).toMatchObject({ outcome: "no_signal", reason: expect.stringContaining("no final result") });
    expect(classify(run({ final: "", isError: true }), 45)).toMatchObject({ reason: expect.stringContaining("boom") });
  });
  test("timeout wins over any text", () =>
    expect(classify(run({ end: "timeout", final: "<promise>COMPLETE</promise>" }), 7)).toMatchObject({
      outcome: "timeout",
      reason: expect.stringContaining("7 min"),
    }));
  test("a stop wins over any text", () => expect(classify(run({ end: "aborted" }), 45).outcome).toBe("stopped"));
  test("the run's promise decides, whatever else the final text holds", () =>
    expect(classify(run({ promise: { kind: "complete" }, exitCode: 0 }), 45)).toEqual({ outcome: "complete" }));
});

test("the prompt tells the agent the rule: the promise last, outside code blocks", async () => {
  const { buildPrompt } = await import("../../src/engine/prompt.ts");
  const p = buildPrompt({
    worktree: "/w",
    task: "t",
    story: { id: "1", title: "T", tasks: [] },
    index: 1,
    total: 1,
    learningsFile: "/w/l.md",
    attempt: 1,
    maxRetries: 3,
    source: { kind: "manual" },
  } as never);
  expect(p).toContain("very last thing in your final message, as plain text outside any code block");
});
