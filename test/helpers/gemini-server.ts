/**
 * A scripted "model" for the real Gemini CLI: an HTTP server on 127.0.0.1 speaking the Gemini API
 * (`streamGenerateContent?alt=sse`), which the CLI uses when GOOGLE_GEMINI_BASE_URL points at it.
 * Each agent run is one conversation; each turn is text or one `run_shell_command` call, chosen by
 * how many function responses the request already holds.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type Refuse, type ScriptedServer } from "./scripted-server.ts";

export type GeminiTurn = { text: string } | { command: string };

export type GeminiServer = ScriptedServer;

const USAGE = { promptTokenCount: 150, cachedContentTokenCount: 50, candidatesTokenCount: 25, totalTokenCount: 175 };
const rounds = (body: any) => (body.contents as any[]).flatMap((c) => c.parts ?? []).filter((p: any) => p.functionResponse).length;

export function startGeminiServer(conversations: GeminiTurn[][], refuse?: Refuse): ScriptedServer {
  return startScriptedServer<GeminiTurn>(
    {
      // Side calls (loop detection, next-speaker checks) are not streamed: answer them briefly.
      side: (url) =>
        url.pathname.endsWith(":streamGenerateContent")
          ? undefined
          : Response.json({ candidates: [{ content: { role: "model", parts: [{ text: "{}" }] }, finishReason: "STOP" }], usageMetadata: USAGE }),
      rounds,
      prompt: (body) => (body.contents as any[]).flatMap((c) => c.parts.map((p: any) => p.text ?? "")).join("\n"),
      answer(turn) {
        const part = "text" in turn ? { text: turn.text } : { functionCall: { name: "run_shell_command", args: { command: turn.command } } };
        const chunk = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata: USAGE };
        return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
      },
    },
    conversations,
    { text: "(no script)" },
    refuse,
  );
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
