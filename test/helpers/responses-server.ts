/**
 * A scripted "model" for the real Codex CLI: an HTTP server on 127.0.0.1 speaking the OpenAI
 * Responses API's streaming format, which Codex uses with a custom `model_providers` entry
 * (`wire_api = "responses"`). Each agent run is one conversation; each turn is text or one
 * `exec_command` call, chosen by how many tool outputs the request already holds.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type Refuse, type ScriptedServer } from "./scripted-server.ts";

export type CodexTurn = { text: string } | { cmd: string };

export type ResponsesServer = ScriptedServer;

const sse = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const USAGE = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 20 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 150,
};

function stream(turn: CodexTurn, n: number): string {
  const id = `resp_${n}`;
  const item =
    "text" in turn
      ? { id: `msg_${n}`, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] }
      : { id: `fc_${n}`, type: "function_call", status: "completed", call_id: `call_${n}`, name: "exec_command", arguments: JSON.stringify({ cmd: turn.cmd }) };
  let out = sse({ type: "response.created", response: { id, object: "response", status: "in_progress", output: [] } } as any);
  out += sse({
    type: "response.output_item.added",
    output_index: 0,
    item: { ...item, status: "in_progress", ...("content" in item ? { content: [] } : {}) },
  } as any);
  if ("text" in turn) out += sse({ type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: turn.text } as any);
  out += sse({ type: "response.output_item.done", output_index: 0, item } as any);
  out += sse({ type: "response.completed", response: { id, object: "response", status: "completed", output: [item], usage: USAGE } } as any);
  return out;
}

export function startResponsesServer(conversations: CodexTurn[][], refuse?: Refuse): ScriptedServer {
  return startScriptedServer<CodexTurn>(
    {
      side: (url) => (url.pathname.endsWith("/responses") ? undefined : Response.json({ data: [] })),
      rounds: (body) => (body.input as any[]).filter((i) => i.type === "function_call_output").length,
      prompt: (body) =>
        (body.input as any[])
          .filter((i) => i.role === "user")
          .flatMap((i) => i.content.map((c: any) => c.text ?? ""))
          .join("\n"),
      answer: stream,
      basePath: "/v1",
    },
    conversations,
    { text: "(no script)" },
    refuse,
  );
}

/** A CODEX_HOME whose config points Codex at the scripted server; the environment to run it with. */
export function codexEnv(url: string, home: string): Record<string, string> {
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, "config.toml"),
    `model = "scripted"\nmodel_provider = "local"\n\n[model_providers.local]\nname = "scripted"\nbase_url = "${url}"\nenv_key = "WT_LOOP_TEST_KEY"\nwire_api = "responses"\n`,
  );
  return { HOME: home, CODEX_HOME: codexHome, WT_LOOP_TEST_KEY: "sk-test" };
}
