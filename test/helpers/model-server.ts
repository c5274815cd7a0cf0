/**
 * A scripted "model" for the real Claude Code binary: an HTTP server on 127.0.0.1 that speaks the
 * Messages API's streaming format (reference/claude-against-local-api.md). Each agent run is one
 * conversation; each conversation is a list of turns — text, or one tool call — chosen by how many
 * tool rounds the request already holds. Every request body is recorded for the test to inspect.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type Refuse, type ScriptedServer } from "./scripted-server.ts";

export type Turn = { text: string } | { tool: string; input: Record<string, unknown>; text?: string };

export type ModelServer = ScriptedServer;

const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function stream(turn: Turn, id: string): string {
  const usage = { input_tokens: 100, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  let out = sse("message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model: "claude-scripted", content: [], stop_reason: null, stop_sequence: null, usage },
  });
  let index = 0;
  const text = "text" in turn ? turn.text : undefined;
  if (text) {
    out += sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
    out += sse("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  if ("tool" in turn) {
    out += sse("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: `toolu_${id}`, name: turn.tool, input: {} },
    });
    out += sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(turn.input) } });
    out += sse("content_block_stop", { type: "content_block_stop", index });
  }
  out += sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "tool" in turn ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 20 },
  });
  out += sse("message_stop", { type: "message_stop" });
  return out;
}

const assistantTurns = (body: any) => (body.messages as any[]).filter((m) => m.role === "assistant").length;
const SSE = { headers: { "content-type": "text/event-stream" } };

/** `conversations[i]` scripts the i-th agent run; the last one repeats. */
export function startModelServer(conversations: Turn[][], refuse?: Refuse): ScriptedServer {
  let side = 0;
  return startScriptedServer<Turn>(
    {
      side(url, body) {
        if (!url.pathname.startsWith("/v1/messages")) return Response.json({});
        if (url.pathname.includes("count_tokens")) return Response.json({ input_tokens: 100 });
        // Side requests (titles, summaries) carry no tools: answer them briefly, outside the script.
        if (!Array.isArray(body.tools) || body.tools.length === 0) return new Response(stream({ text: "ok" }, `side_${++side}`), SSE);
      },
      rounds: assistantTurns,
      prompt(body) {
        const c = body.messages[0].content;
        return typeof c === "string" ? c : c.map((x: any) => x.text ?? "").join("\n");
      },
      answer: (turn, n) => stream(turn, `msg_${n}`),
    },
    conversations,
    { text: "(no script)" },
    refuse,
  );
}

/** A Messages API error as the real API sends it; `x-should-retry: false` makes Claude Code give up at once. */
export function apiError(status: number, type: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ type: "error", error: { type, message } }, { status, headers });
}

/**
 * The environment the real claude binary needs to talk to the scripted server, isolated from the user's. Its
 * temporary folder is in `home` too: claude leaves folders there (`cc-socks`, `claude-0`), which go with `home`.
 */
export function claudeEnv(url: string, home: string): Record<string, string> {
  mkdirSync(join(home, "tmp"), { recursive: true });
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-test-scripted",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    IS_SANDBOX: "1", // --dangerously-skip-permissions is refused for root otherwise
    TMPDIR: join(home, "tmp"),
  };
}
