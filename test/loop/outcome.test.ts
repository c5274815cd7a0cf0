import { describe, expect, test } from "bun:test";
import type { AgentRun } from "../../src/agents/run-agent.ts";
import { ZERO_TOKENS } from "../../src/state/schema.ts";
import { classify, findPromise } from "../../src/loop/outcome.ts";

const run = (over: Partial<AgentRun> & { final?: string; isError?: boolean }): AgentRun => ({
  done: over.final === undefined ? null : { type: "Done", final_text: over.final, turns: 1, tokens: ZERO_TOKENS, cost_usd: null, is_error: over.isError ?? false, errors: over.isError ? ["boom"] : [] },
  lastMessage: "", exitCode: 0, end: "exit", durationMs: 1, ...over,
});

describe("findPromise", () => {
  test.each([
    ["all good <promise>COMPLETE</promise>", { kind: "complete" }],
    ["<promise>FAILED: tests fail</promise>", { kind: "failed", reason: "tests fail" }],
    ["<promise>FAILED: line one\nline two</promise>", { kind: "failed", reason: "line one\nline two" }],
    ["<promise> COMPLETE </promise>", { kind: "complete" }],
    ["plan: <promise>FAILED: x</promise> then fixed it <promise>COMPLETE</promise>", { kind: "complete" }],
    ["<promise>FAILED:</promise>", { kind: "failed", reason: "no reason given" }],
    ["no promise here", null],
    ["<promise>DONE</promise>", null],
  ])("%p", (text, want) => expect(findPromise(text)).toEqual(want as never));
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
    expect(classify(run({ end: "timeout", final: "<promise>COMPLETE</promise>" }), 7)).toMatchObject({ outcome: "timeout", reason: expect.stringContaining("7 min") }));
  test("a stop wins over any text", () => expect(classify(run({ end: "aborted" }), 45).outcome).toBe("stopped"));
  test("without a result line the last assistant message is the final text", () =>
    expect(classify(run({ lastMessage: "<promise>COMPLETE</promise>", exitCode: 0 }), 45)).toEqual({ outcome: "complete" }));
});
