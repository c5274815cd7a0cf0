/**
 * Claude Code: `claude -p --output-format stream-json --verbose` (prompt on stdin). Lines are read
 * by field name and extra fields ignored: real `result` lines carry many more than the SDK types list.
 */
import { z } from "zod";
import { ZERO_TOKENS } from "../state/schema.ts";
import { parseJsonLine, type AgentAdapter, type OutputParser } from "./adapter.ts";
import { summarizeInput, type StreamEvent } from "./stream.ts";

const Block = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("tool_use"), name: z.string(), input: z.unknown() }),
]);
const Assistant = z.looseObject({
  type: z.literal("assistant"),
  message: z.looseObject({ content: z.array(z.unknown()) }),
});
const n = z.number().int().nonnegative().catch(0);
const Usage = z.looseObject({
  input_tokens: n,
  output_tokens: n,
  cache_read_input_tokens: n.optional(),
  cache_creation_input_tokens: n.optional(),
});
const Result = z.looseObject({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.boolean().catch(false),
  result: z.string().optional(),
  num_turns: n.optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  usage: Usage.optional(),
  errors: z.array(z.string()).optional(),
});

export function claudeParser(): OutputParser {
  return {
    line(line) {
      const json = parseJsonLine(line);
      const a = Assistant.safeParse(json);
      if (a.success) {
        const events: StreamEvent[] = [];
        for (const raw of a.data.message.content) {
          const b = Block.safeParse(raw);
          if (!b.success) continue; // thinking, images, future block types
          if (b.data.type === "text") events.push({ type: "Message", text: b.data.text });
          else events.push({ type: "ToolUse", name: b.data.name, summary: summarizeInput(b.data.input) });
        }
        return events;
      }
      const r = Result.safeParse(json);
      if (!r.success) return [];
      const u = r.data.usage;
      return [
        {
          type: "Done",
          final_text: r.data.result ?? "",
          turns: r.data.num_turns ?? null,
          tokens: u
            ? { input: u.input_tokens, output: u.output_tokens, cache_read: u.cache_read_input_tokens ?? 0, cache_creation: u.cache_creation_input_tokens ?? 0 }
            : ZERO_TOKENS,
          cost_usd: r.data.total_cost_usd ?? null,
          // `is_error: true` also appears with subtype "success"; either one marks an error.
          is_error: r.data.is_error || r.data.subtype !== "success",
          errors: r.data.errors ?? [],
        },
      ];
    },
    end: () => [],
  };
}

export const claude: AgentAdapter = {
  name: "claude",
  argv: (call) => [
    "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--dangerously-skip-permissions",
    ...(call.model ? ["--model", call.model] : []),
  ],
  env: (env) => {
    // Inside a Claude Code session CLAUDECODE is set, and a nested claude would refuse to start.
    const { CLAUDECODE: _, ...rest } = env;
    return rest;
  },
  parser: claudeParser,
};
