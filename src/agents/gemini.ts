/**
 * Google Gemini CLI: `gemini --output-format stream-json --yolo --skip-trust -p PROMPT`. Assistant text arrives
 * in `delta` chunks that are joined into one message; usage comes from the `result` line; no cost.
 */
import { join } from "node:path";
import { z } from "zod";
import { authFailure, classifyErrorText, parseJsonLine, type AgentAdapter, type ErrorForms, type OutputParser } from "./adapter.ts";
import type { StreamEvent } from "./stream.ts";
import { summarizeInput } from "./tool-summary.ts";

const n = z.number().int().nonnegative().catch(0);
const Line = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message"), role: z.string(), content: z.string(), delta: z.boolean().optional() }),
  z.looseObject({ type: z.literal("tool_use"), tool_name: z.string(), parameters: z.unknown() }),
  z.looseObject({
    type: z.literal("result"),
    status: z.string(),
    error: z.looseObject({ message: z.string() }).optional(),
    stats: z.looseObject({ input_tokens: n, output_tokens: n, cached: n.optional(), tool_calls: n.optional() }).optional(),
  }),
]);

/**
 * Gemini CLI's errors, measured with the real CLI against a scripted Gemini API: a result line with
 * `status: "error"` and `[API Error: {"error":{"code":401,…,"status":"UNAUTHENTICATED"}}]`, or for a
 * daily quota `[API Error: You have exhausted your daily quota on this model.]` (per-minute limits
 * and 5xx it retries by itself, quietly, for minutes). A missing key prints nothing on stdout and
 * exits 41 (the CLI's FatalAuthenticationError).
 */
const FORMS: ErrorForms = {
  agent: "Gemini CLI",
  auth: /"code":\s*(401|403)\b|UNAUTHENTICATED|PERMISSION_DENIED|API key not valid|API_KEY_INVALID|GEMINI_API_KEY/,
  unavailable:
    /"code":\s*(429|5\d\d)\b|RESOURCE_EXHAUSTED|quota|rate limit|UNAVAILABLE|overloaded|"status":\s*"INTERNAL"|ECONN|ETIMEDOUT|fetch failed|network/i,
  login: "Log in again with `gemini` (then /auth), or set a valid GEMINI_API_KEY, then run `wt-loop start` to continue.",
};
const AUTH_EXIT = 41;

export function geminiParser(): OutputParser {
  let sawResult = false;
  let text = ""; // the assistant's current message, built from deltas
  let last = "";
  let turns = 0;
  const flush = (): StreamEvent[] => {
    if (!text) return [];
    last = text;
    text = "";
    turns++;
    return [{ type: "Message", text: last }];
  };
  return {
    line(raw) {
      const l = Line.safeParse(parseJsonLine(raw));
      if (!l.success) return [];
      switch (l.data.type) {
        case "message":
          if (l.data.role !== "assistant") return flush();
          if (!l.data.delta) return [...flush(), ...((text = l.data.content), flush())];
          text += l.data.content;
          return [];
        case "tool_use":
          return [...flush(), { type: "ToolUse", name: l.data.tool_name, summary: summarizeInput(l.data.parameters) }];
        case "result": {
          const events = flush();
          const s = l.data.stats;
          const cached = s?.cached ?? 0;
          const tokens = { input: Math.max(0, (s?.input_tokens ?? 0) - cached), output: s?.output_tokens ?? 0, cache_read: cached, cache_creation: 0 };
          const errors = l.data.error ? [l.data.error.message] : [];
          sawResult = true;
          if (l.data.status !== "success" && l.data.error) {
            const verdict = classifyErrorText(l.data.error.message, FORMS);
            if (verdict) events.push(verdict);
          }
          events.push({ type: "Done", final_text: last, turns, tokens, cost_usd: null, is_error: l.data.status !== "success", errors });
          return events;
        }
      }
    },
    end: (exitCode) =>
      !sawResult && exitCode === AUTH_EXIT
        ? [authFailure(`Gemini CLI could not authenticate (it exited with code ${AUTH_EXIT}; its message is in the iteration's .stderr log). ${FORMS.login}`)]
        : [],
  };
}

export const gemini: AgentAdapter = {
  name: "gemini",
  promptInArgv: true,
  // --skip-trust: in a folder the CLI has not been told to trust, it silently turns --yolo off and
  // a headless run then cannot use any tool.
  argv: (call) => ["gemini", "--output-format", "stream-json", "--yolo", "--skip-trust", ...(call.model ? ["--model", call.model] : []), "-p", call.prompt],
  parser: geminiParser,
  sandbox: {
    state: (_env, home) => [join(home, ".gemini")],
    config: (_env, home) => ["settings.json", "GEMINI.md", "extensions", "commands"].map((f) => join(home, ".gemini", f)),
    env: ["GEMINI_*", "GOOGLE_GEMINI_*", "GOOGLE_GENAI_*", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS"],
    api: (env) => env.GOOGLE_GEMINI_BASE_URL || "https://generativelanguage.googleapis.com",
  },
};
