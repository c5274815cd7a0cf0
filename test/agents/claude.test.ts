import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { claude, claudeParser } from "../../src/agents/claude.ts";
import type { StreamEvent } from "../../src/agents/stream.ts";

const parseAll = (lines: string[]) => {
  const p = claudeParser();
  return [...lines.flatMap((l) => p.line(l)), ...p.end(0)];
};

describe("claude adapter", () => {
  test("the real capture becomes Message/ToolUse/Done with tokens and cost", () => {
    const lines = readFileSync(join(import.meta.dir, "../fixtures/claude-real-stream.jsonl"), "utf8")
      .trim()
      .split("\n");
    const events = parseAll(lines);
    const done = events.find((e) => e.type === "Done") as Extract<StreamEvent, { type: "Done" }>;
    expect(done).toMatchObject({ final_text: "Wrote file. <promise>COMPLETE</promise>", turns: 2, cost_usd: 0.00144, is_error: false });
    expect(done.tokens).toEqual({ input: 200, output: 32, cache_read: 0, cache_creation: 0 });
    expect(events.some((e) => e.type === "ToolUse" && e.name === "Write")).toBe(true);
  });

  test("cache tokens, error results and is_error with subtype success", () => {
    const [a] = parseAll([
      JSON.stringify({
        type: "result",
        subtype: "error_max_turns",
        is_error: true,
        num_turns: 31,
        total_cost_usd: 1.92,
        usage: { input_tokens: 5, output_tokens: 6, cache_read_input_tokens: 7, cache_creation_input_tokens: 8 },
        errors: ["Reached maximum number of turns (30)"],
      }),
    ]);
    expect(a).toEqual({
      type: "Done",
      final_text: "",
      turns: 31,
      cost_usd: 1.92,
      is_error: true,
      errors: ["Reached maximum number of turns (30)"],
      tokens: { input: 5, output: 6, cache_read: 7, cache_creation: 8 },
    });
    const [b] = parseAll([JSON.stringify({ type: "result", subtype: "success", is_error: true, result: "x" })]);
    expect(b).toMatchObject({ type: "Done", is_error: true, final_text: "x" });
  });

  test("non-JSON lines, unknown types and odd blocks are skipped, not fatal", () => {
    const events = parseAll([
      "plain text",
      "{broken json",
      JSON.stringify({ type: "stream_event", event: {} }),
      JSON.stringify({
        type: "assistant",
        message: {
          content: [
            { type: "thinking", thinking: "hm" },
            { type: "text", text: "hi" },
            { type: "tool_use", name: "Bash", input: { command: "ls -la\nmore" } },
          ],
        },
      }),
    ]);
    expect(events).toEqual([
      { type: "Message", text: "hi" },
      { type: "ToolUse", name: "Bash", summary: "ls -la" },
    ]);
  });

  test("a message of 10 MB is kept whole", () => {
    const big = "x".repeat(10 * 1024 * 1024);
    const [e] = parseAll([JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: big }] } })]);
    expect(e).toEqual({ type: "Message", text: big });
  });

  test("command line and environment: stream-json, verbose, no permission prompts, CLAUDECODE removed", () => {
    expect(claude.argv({ prompt: "p", model: "opus", agentCmd: null })).toEqual([
      "claude",
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--dangerously-skip-permissions",
      "--model",
      "opus",
    ]);
    expect(claude.promptInArgv).toBeFalsy();
    expect(claude.env!({ CLAUDECODE: "1", PATH: "/bin" })).toEqual({ PATH: "/bin" });
  });
});
