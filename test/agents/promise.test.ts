import { describe, expect, test } from "bun:test";
import { findPromise, findVerdict, PromiseScanner } from "../../src/agents/promise.ts";

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
    ["done\n\n<promise>COMPLETE</promise>\n\n", { kind: "complete" }],
    ["~~~\ncode\n~~~\n<promise>COMPLETE</promise>", { kind: "complete" }],
    ["```js\nx = 1\n```\n<promise>FAILED: no db</promise>", { kind: "failed", reason: "no db" }],
    ["<promise>FAILED: tests:\n```\nerror\n```\n</promise>", { kind: "failed", reason: "tests:\n```\nerror\n```" }],
  ])("%p", (text, want) => expect(findPromise(text)).toEqual(want as never));
});

describe("a promise counts only at the end of the final message, outside code fences", () => {
  test.each([
    ["quoted in a code block, then more text", "The rule says:\n```\n<promise>COMPLETE</promise>\n```\nI could NOT finish the task."],
    ["quoted in a code block at the very end", "Example:\n```\n<promise>COMPLETE</promise>\n```"],
    ["inside a fence never closed", "Here:\n```text\n<promise>COMPLETE</promise>"],
    ["inside a tilde fence", "~~~~\n<promise>COMPLETE</promise>\n"],
    ["followed by more text", "<promise>COMPLETE</promise> — but I could NOT finish"],
    ["in inline code", "I would write `<promise>COMPLETE</promise>`"],
  ])("%s → no promise", (_, text) => expect(findPromise(text)).toBeNull());

  test("a text fed in pieces of any size gives the same verdict as the whole", () => {
    const text = "x".repeat(300_000) + "\n```\n" + "y\n".repeat(200_000) + "```\nall done\n<promise>FAILED: one\ntwo</promise>\n";
    for (const size of [1, 7, 4096, 1 << 20]) {
      const s = new PromiseScanner();
      for (let i = 0; i < text.length; i += size) s.push(text.slice(i, i + size));
      expect(s.result()).toEqual({ kind: "failed", reason: "one\ntwo" });
    }
    const fenced = new PromiseScanner();
    fenced.push("```\n" + "z".repeat(600_000));
    fenced.push("\n<promise>COMPLETE</promise>");
    expect(fenced.result()).toBeNull();
  });

  test("linear: 1 MB of unclosed promises costs milliseconds, not seconds", () => {
    const text = "<promise>FAILED: ".repeat(65_000);
    const t0 = performance.now();
    expect(findPromise(text)).toBeNull();
    expect(findPromise(text + "</promise>")).toEqual({ kind: "failed", reason: "no reason given" });
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe("a reviewer's verdict: the same final-tag rule as a promise", () => {
  test.each([
    ["Looks right. <review>APPROVE</review>", { kind: "approve" }],
    ["<review>CHANGES: greet.txt says hi, not hello</review>\n", { kind: "changes", reason: "greet.txt says hi, not hello" }],
    ["<review>CHANGES:</review>", { kind: "changes", reason: "no reason given" }],
    ["<review>LGTM</review>", null],
    ["Example:\n```\n<review>APPROVE</review>\n```", null],
    ["<review>APPROVE</review> but the tests fail", null],
    ["<promise>COMPLETE</promise>", null],
  ])("%p", (text, want) => expect(findVerdict(text)).toEqual(want as never));

  test("a verdict is not a promise, nor a promise a verdict", () => {
    expect(findPromise("<review>APPROVE</review>")).toBeNull();
    expect(findVerdict("<promise>COMPLETE</promise>")).toBeNull();
  });
});
