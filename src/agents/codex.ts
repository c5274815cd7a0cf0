/**
 * OpenAI Codex: `codex exec --json` (prompt as the last argument). Usage comes from `turn.completed`;
 * Codex reports no cost. The final text is the last `agent_message`.
 */
import { z } from "zod";
import { parseJsonLine, type AgentAdapter, type OutputParser } from "./adapter.ts";
import type { StreamEvent } from "./stream.ts";

const n = z.number().int().nonnegative().catch(0);
const Item = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("agent_message"), text: z.string() }),
  z.looseObject({ type: z.literal("command_execution"), command: z.string() }),
  z.looseObject({ type: z.literal("file_change"), changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })) }),
  z.looseObject({ type: z.literal("mcp_tool_call"), tool: z.string().catch("mcp") }),
  z.looseObject({ type: z.literal("web_search"), query: z.string().catch("") }),
  z.looseObject({ type: z.literal("error"), message: z.string() }),
]);
const Line = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("item.completed"), item: z.unknown() }),
  z.looseObject({
    type: z.literal("turn.completed"),
    usage: z.looseObject({ input_tokens: n, cached_input_tokens: n.optional(), cache_write_input_tokens: n.optional(), output_tokens: n }),
  }),
  z.looseObject({ type: z.literal("turn.failed"), error: z.looseObject({ message: z.string() }) }),
  z.looseObject({ type: z.literal("error"), message: z.string() }),
]);

export function codexParser(): OutputParser {
  let last = "";
  const tokens = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  const errors: string[] = [];
  let turns = 0;
  let sawEnd = false;
  return {
    line(raw) {
      const l = Line.safeParse(parseJsonLine(raw));
      if (!l.success) return [];
      switch (l.data.type) {
        case "item.completed": {
          const item = Item.safeParse(l.data.item);
          if (!item.success) return [];
          const it = item.data;
          switch (it.type) {
            case "agent_message":
              last = it.text;
              return [{ type: "Message", text: it.text }];
            case "command_execution":
              return [{ type: "ToolUse", name: "shell", summary: it.command }];
            case "file_change":
              return [{ type: "ToolUse", name: "edit", summary: it.changes.map((c) => `${c.kind} ${c.path}`).join(", ") }];
            case "mcp_tool_call":
              return [{ type: "ToolUse", name: it.tool, summary: "" }];
            case "web_search":
              return [{ type: "ToolUse", name: "web_search", summary: it.query }];
            case "error":
              errors.push(it.message);
              return [];
          }
          return [];
        }
        case "turn.completed": {
          const u = l.data.usage;
          // Codex counts cached tokens inside input_tokens; keep the categories disjoint as Claude's are.
          const cached = u.cached_input_tokens ?? 0;
          tokens.input += Math.max(0, u.input_tokens - cached);
          tokens.cache_read += cached;
          tokens.cache_creation += u.cache_write_input_tokens ?? 0;
          tokens.output += u.output_tokens;
          turns++;
          sawEnd = true;
          return [];
        }
        case "turn.failed":
          errors.push(l.data.error.message);
          sawEnd = true;
          return [];
        case "error":
          errors.push(l.data.message);
          return [];
      }
    },
    end(exitCode): StreamEvent[] {
      if (!sawEnd && exitCode !== 0) return [];
      const is_error = errors.length > 0 || exitCode !== 0;
      return [{ type: "Done", final_text: last, turns, tokens: { ...tokens }, cost_usd: null, is_error, errors }];
    },
  };
}

export const codex: AgentAdapter = {
  name: "codex",
  promptInArgv: true,
  argv: (call) => [
    "codex",
    "exec",
    "--json",
    "--dangerously-bypass-approvals-and-sandbox",
    "--skip-git-repo-check",
    ...(call.model ? ["--model", call.model] : []),
    call.prompt,
  ],
  parser: codexParser,
};
