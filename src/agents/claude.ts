/**
 * Claude Code: `claude -p --output-format stream-json --verbose` (prompt on stdin). Lines are read
 * by field name and extra fields ignored: real `result` lines carry many more than the SDK types list.
 */
import { join } from "node:path";
import { z } from "zod";
import { ZERO_TOKENS } from "../state/tokens.ts";
import { authFailure, parseJsonLine, unavailable, type AgentAdapter, type OutputParser } from "./adapter.ts";
import { resetTimeIn } from "./reset-time.ts";
import type { StreamEvent, UnavailableEvent } from "./stream.ts";
import { summarizeInput } from "./tool-summary.ts";

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
const status = z.number().int().nullable().catch(null);
/** The CLI retries an API call by itself (429, 529, 5xx, network; 401 too, for minutes). */
const ApiRetry = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number().int().nullable().catch(null),
  max_retries: z.number().int().nullable().catch(null),
  retry_delay_ms: z.number().nonnegative().nullable().catch(null),
  error_status: status,
  error: z.string().catch("unknown"),
});
/** Subscription limits: `rate_limit_info.resetsAt` in epoch seconds. */
const RateLimit = z.looseObject({
  type: z.literal("rate_limit_event"),
  rate_limit_info: z.looseObject({ status: z.string().catch(""), resetsAt: z.number().optional().catch(undefined) }),
});
/** An assistant line the CLI made up from an API error: `"error":"rate_limit"`, text `API Error: …`. */
const ApiErrorLine = z.looseObject({ type: z.literal("assistant"), error: z.string(), api_error_status: status.optional() });
const Result = z.looseObject({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.boolean().catch(false),
  result: z.string().optional(),
  num_turns: n.optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  usage: Usage.optional(),
  errors: z.array(z.string()).optional(),
  terminal_reason: z.string().optional().catch(undefined),
  api_error_status: status.optional(),
});

const AUTH_ERRORS = new Set(["authentication_failed", "billing_error", "oauth_org_not_allowed"]);
const UNAVAILABLE_ERRORS = new Set(["rate_limit", "overloaded", "server_error", "unknown"]);
const LOGIN = "Log in again with `claude /login` (or set a valid ANTHROPIC_API_KEY), then run `wt-loop start` to continue.";

/** A refused API call's verdict from the CLI's error kind and HTTP status (null for a network failure). */
function apiVerdict(kind: string | undefined, httpStatus: number | null | undefined, text: string, resetAt: Date | null): UnavailableEvent | null {
  const said = text.replace(/\s+/g, " ").trim().slice(0, 300);
  if ((kind && AUTH_ERRORS.has(kind)) || httpStatus === 401 || httpStatus === 403) return authFailure(`Claude Code could not authenticate (${said}). ${LOGIN}`);
  // A 400 (a bad request) is the agent's failure, not the service's: retried as an attempt.
  if ((kind && UNAVAILABLE_ERRORS.has(kind)) || httpStatus === 429 || httpStatus === 408 || (httpStatus ?? 0) >= 500 || httpStatus === null)
    return unavailable(`Claude Code: ${said}`, resetAt ?? resetTimeIn(text));
  return null;
}

export function claudeParser(): OutputParser {
  let resetAt: Date | null = null; // from a rate_limit_event, for the refusal that follows it
  let refused: { kind: string; status: number | null | undefined } | null = null;
  let verdict: UnavailableEvent | null = null; // said once per run
  const judge = (v: UnavailableEvent | null): StreamEvent[] => (v && !verdict ? [(verdict = v)] : []);
  return {
    line(line) {
      const json = parseJsonLine(line);
      // Each schema below requires its own `type`: only that one is tried. A failed parse builds its
      // issues, and most lines are messages (docs/performance.md "Memory").
      const type = (json as { type?: unknown } | undefined)?.type;
      const retry = type === "system" ? ApiRetry.safeParse(json) : null;
      if (retry?.success) {
        const r = retry.data;
        const shown: StreamEvent = {
          type: "ApiRetry",
          attempt: r.attempt,
          max_retries: r.max_retries,
          delay_ms: r.retry_delay_ms,
          status: r.error_status,
          error: r.error,
        };
        // The CLI would retry refused credentials for minutes: end the run on the first one.
        const auth = AUTH_ERRORS.has(r.error) || r.error_status === 401 || r.error_status === 403;
        return [shown, ...(auth ? judge(apiVerdict(r.error, r.error_status, `API Error: ${r.error_status ?? ""} ${r.error}`.replace("  ", " "), null)) : [])];
      }
      const limit = type === "rate_limit_event" ? RateLimit.safeParse(json) : null;
      if (limit?.success) {
        const info = limit.data.rate_limit_info;
        if (info.status === "rejected" && info.resetsAt) resetAt = new Date(info.resetsAt * 1000);
        return [];
      }
      const apiError = type === "assistant" && typeof (json as { error?: unknown }).error === "string" ? ApiErrorLine.safeParse(json) : null;
      if (apiError?.success) refused = { kind: apiError.data.error, status: apiError.data.api_error_status };
      const a = type === "assistant" ? Assistant.safeParse(json) : null;
      if (a?.success) {
        const events: StreamEvent[] = [];
        for (const raw of a.data.message.content) {
          const b = Block.safeParse(raw);
          if (!b.success) continue; // thinking, images, future block types
          if (b.data.type === "text") events.push({ type: "Message", text: b.data.text });
          else events.push({ type: "ToolUse", name: b.data.name, summary: summarizeInput(b.data.input) });
        }
        return events;
      }
      const r = type === "result" ? Result.safeParse(json) : null;
      if (!r?.success) return [];
      const u = r.data.usage;
      const failedCall = r.data.is_error && (r.data.terminal_reason === "api_error" || refused !== null);
      return [
        ...(failedCall
          ? judge(apiVerdict(refused?.kind, r.data.api_error_status ?? refused?.status, r.data.result ?? r.data.errors?.join("; ") ?? "", resetAt))
          : []),
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
    // Ended without its result line after a refused call (killed, crashed): the refusal still counts.
    end: () => (refused && !verdict ? judge(apiVerdict(refused.kind, refused.status, `API Error (${refused.kind})`, resetAt)) : []),
  };
}

const claudeDir = (env: Record<string, string | undefined>, home: string) => env.CLAUDE_CONFIG_DIR || join(home, ".claude");

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
  sandbox: {
    state: (env, home) => [claudeDir(env, home)],
    // ~/.claude.json holds the MCP servers (and is rewritten by every session): read-only, its changes inside are lost (docs/security.md).
    config: (env, home) => [
      env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, ".claude.json") : join(home, ".claude.json"),
      ...["settings.json", "CLAUDE.md", "agents", "commands", "skills", "hooks", "plugins", "output-styles"].map((f) => join(claudeDir(env, home), f)),
    ],
    env: [
      "ANTHROPIC_*",
      "CLAUDE_*",
      "DISABLE_*",
      "IS_SANDBOX",
      "MAX_THINKING_TOKENS",
      "MAX_MCP_OUTPUT_TOKENS",
      "MCP_TIMEOUT",
      "MCP_TOOL_TIMEOUT",
      "BASH_DEFAULT_TIMEOUT_MS",
      "BASH_MAX_TIMEOUT_MS",
      "BASH_MAX_OUTPUT_LENGTH",
    ],
    api: (env) => env.ANTHROPIC_BASE_URL || "https://api.anthropic.com",
  },
};
