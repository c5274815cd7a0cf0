/**
 * A scripted "model" for the real Gemini CLI: an HTTP server on 127.0.0.1 speaking the Gemini API
 * (`streamGenerateContent?alt=sse`), which the CLI uses when GOOGLE_GEMINI_BASE_URL points at it.
 * Each agent run is one conversation; each turn is text or one `run_shell_command` call, chosen by
 * how many function responses the request already holds.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type GeminiTurn = { text: string } | { command: string };

export interface GeminiServer {
  url: string;
  requests: any[];
  prompts(): string[];
  stop(): void;
}

const USAGE = { promptTokenCount: 150, cachedContentTokenCount: 50, candidatesTokenCount: 25, totalTokenCount: 175 };
const rounds = (body: any) => (body.contents as any[]).flatMap((c) => c.parts ?? []).filter((p: any) => p.functionResponse).length;

export function startGeminiServer(conversations: GeminiTurn[][]): GeminiServer {
  const requests: any[] = [];
  let conversation = -1;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST") return Response.json({});
      const body = (await req.json()) as any;
      // Side calls (loop detection, next-speaker checks) are not streamed: answer them briefly.
      if (!url.pathname.endsWith(":streamGenerateContent"))
        return Response.json({ candidates: [{ content: { role: "model", parts: [{ text: "{}" }] }, finishReason: "STOP" }], usageMetadata: USAGE });
      requests.push(body);
      const n = rounds(body);
      if (n === 0) conversation++;
      const script = conversations[Math.min(conversation, conversations.length - 1)] ?? [];
      const turn = script[Math.min(n, script.length - 1)] ?? { text: "(no script)" };
      const part = "text" in turn ? { text: turn.text } : { functionCall: { name: "run_shell_command", args: { command: turn.command } } };
      const chunk = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata: USAGE };
      return new Response(`data: ${JSON.stringify(chunk)}\r\n\r\n`, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    prompts: () =>
      requests.filter((b) => rounds(b) === 0).map((b) => (b.contents as any[]).flatMap((c) => c.parts.map((p: any) => p.text ?? "")).join("\n")),
    stop: () => server.stop(true),
  };
}

/** A HOME with API-key auth selected, and the environment that points the CLI at the server. */
export function geminiEnv(url: string, home: string): Record<string, string> {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(join(home, ".gemini/settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
  return {
    HOME: home,
    GEMINI_API_KEY: "test-key",
    GOOGLE_GEMINI_BASE_URL: url,
    GOOGLE_GENAI_API_VERSION: "v1beta",
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
}
