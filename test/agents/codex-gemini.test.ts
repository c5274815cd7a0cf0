import { describe, expect, test } from "bun:test";
import { codex, codexParser } from "../../src/agents/codex.ts";
import { gemini, geminiParser } from "../../src/agents/gemini.ts";
import type { OutputParser } from "../../src/agents/adapter.ts";

const run = (p: OutputParser, lines: string[], exit = 0) => [...lines.flatMap((l) => p.line(l)), ...p.end(exit)];

// Shaped like reference/agent-streams.md.
const CODEX = [
  { type: "thread.started", thread_id: "t1" },
  { type: "turn.started" },
  { type: "item.started", item: { id: "item_1", type: "command_execution", command: "bash -lc 'bun test'", status: "in_progress" } },
  {
    type: "item.completed",
    item: { id: "item_1", type: "command_execution", command: "bash -lc 'bun test'", aggregated_output: " 3 pass\n", exit_code: 0, status: "completed" },
  },
  { type: "item.completed", item: { id: "item_2", type: "file_change", changes: [{ path: "src/greet.ts", kind: "update" }], status: "completed" } },
  { type: "item.completed", item: { id: "item_3", type: "agent_message", text: "Implemented.\n<promise>COMPLETE</promise>" } },
  {
    type: "turn.completed",
    usage: { input_tokens: 24763, cached_input_tokens: 24448, cache_write_input_tokens: 0, output_tokens: 122, reasoning_output_tokens: 64 },
  },
].map((o) => JSON.stringify(o));

describe("codex adapter", () => {
  test("items become events; usage from turn.completed; no cost", () => {
    const events = run(codexParser(), ["not json", ...CODEX]);
    expect(events.filter((e) => e.type !== "Done")).toEqual([
      { type: "ToolUse", name: "shell", summary: "bash -lc 'bun test'" },
      { type: "ToolUse", name: "edit", summary: "update src/greet.ts" },
      { type: "Message", text: "Implemented.\n<promise>COMPLETE</promise>" },
    ]);
    expect(events.at(-1)).toEqual({
      type: "Done",
      final_text: "Implemented.\n<promise>COMPLETE</promise>",
      turns: 1,
      cost_usd: null,
      is_error: false,
      errors: [],
      tokens: { input: 315, cache_read: 24448, cache_creation: 0, output: 122 },
    });
  });

  test("turn.failed marks the run as an error", () => {
    const events = run(codexParser(), [JSON.stringify({ type: "turn.failed", error: { message: "quota" } })], 1);
    expect(events.at(-1)).toMatchObject({ type: "Done", is_error: true, errors: ["quota"] });
  });

  test("a crash before any turn gives no Done (no_signal)", () => {
    expect(run(codexParser(), ["panic"], 101)).toEqual([]);
  });

  test("command line: exec --json, prompt as the last argument", () => {
    const argv = codex.argv({ prompt: "PROMPT", model: null, agentCmd: null });
    expect(argv.slice(0, 3)).toEqual(["codex", "exec", "--json"]);
    expect(argv.at(-1)).toBe("PROMPT");
    expect(codex.promptInArgv).toBe(true);
  });
});

const GEMINI = [
  { type: "init", timestamp: "t", session_id: "s", model: "gemini-2.5-pro" },
  { type: "message", timestamp: "t", role: "user", content: "Implement…" },
  { type: "message", timestamp: "t", role: "assistant", content: "I'll run ", delta: true },
  { type: "message", timestamp: "t", role: "assistant", content: "the tests first.", delta: true },
  { type: "tool_use", timestamp: "t", tool_name: "run_shell_command", tool_id: "x", parameters: { command: "bun test" } },
  { type: "tool_result", timestamp: "t", tool_id: "x", status: "success", output: "ok <promise>COMPLETE</promise>" },
  { type: "message", timestamp: "t", role: "assistant", content: "Done. <promise>COMPLETE</promise>", delta: true },
  {
    type: "result",
    timestamp: "t",
    status: "success",
    stats: { total_tokens: 12345, input_tokens: 12000, output_tokens: 345, cached: 8000, input: 4000, duration_ms: 9000, tool_calls: 1 },
  },
].map((o) => JSON.stringify(o));

describe("gemini adapter", () => {
  test("deltas are joined into messages; tokens from result; tool results never become text", () => {
    const events = run(geminiParser(), GEMINI);
    expect(events.filter((e) => e.type !== "Done")).toEqual([
      { type: "Message", text: "I'll run the tests first." },
      { type: "ToolUse", name: "run_shell_command", summary: "bun test" },
      { type: "Message", text: "Done. <promise>COMPLETE</promise>" },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "Done",
      final_text: "Done. <promise>COMPLETE</promise>",
      cost_usd: null,
      is_error: false,
      tokens: { input: 4000, output: 345, cache_read: 8000, cache_creation: 0 },
    });
  });

  test("an error result", () => {
    const events = run(geminiParser(), [JSON.stringify({ type: "result", status: "error", error: { type: "x", message: "boom" } })]);
    expect(events.at(-1)).toMatchObject({ type: "Done", is_error: true, errors: ["boom"] });
  });

  test("command line", () => {
    expect(gemini.argv({ prompt: "P", model: null, agentCmd: null })).toEqual([
      "gemini",
      "--output-format",
      "stream-json",
      "--yolo",
      "--skip-trust",
      "-p",
      "P",
    ]);
  });
});
