/**
 * OpenAI Codex: `codex exec --json` (prompt as the last argument). Usage comes from `turn.completed`;
 * Codex reports no cost. The final text is the last `agent_message`.
 */
import { join } from "node:path";
import { z } from "zod";
import { classifyErrorText, parseJsonLine, type AgentAdapter, type ErrorForms, type OutputParser } from "./adapter.ts";
import type { StreamEvent, UnavailableEvent } from "./stream.ts";
import { ZERO_TOKENS } from "../state/tokens.ts";

/**
 * Codex's error texts, measured with codex-cli against a scripted Responses API: `exceeded retry
 * limit, last status: 429 Too Many Requests`; a plan's `You’ve hit your usage limit … try again at
 * 11:18 AM`; 5xx as `unexpected status 503 …` or `We’re currently experiencing high demand`; 401/403
 * as `unexpected status 401 Unauthorized: …` (after five "Reconnecting... n/5" lines); a missing key
 * as `Missing environment variable: …`; an API key out of credit as `Quota exceeded. Check your plan
 * and billing details.` (billing: waiting will not help).
 */
const FORMS: ErrorForms = {
  agent: "Codex",
  auth: /\b(401|403) (Unauthorized|Forbidden)|Missing environment variable|not logged in|invalid.{0,10}api.?key|Quota exceeded\. Check your plan and billing/i,
  unavailable: new RegExp(
    "usage limit|rate limit|\\b429\\b|Too Many Requests|high demand|overloaded|unexpected status 5\\d\\d|" +
      "stream disconnected|error sending request|connection|timed? ?out|network",
    "i",
  ),
  login: "Log in again with `codex login` (or set the provider's API key), then run `wt-loop start` to continue.",
};
const RECONNECTING = /^Reconnecting\.\.\. (\d+)\/(\d+) \((.*)\)$/s;

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
  const tokens = { ...ZERO_TOKENS };
  const errors: string[] = [];
  let turns = 0;
  let sawEnd = false;
  let verdict: UnavailableEvent | null = null;
  const judge = (text: string): StreamEvent[] => {
    if (verdict) return [];
    verdict = classifyErrorText(text, FORMS);
    return verdict ? [verdict] : [];
  };
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
          return judge(l.data.error.message);
        case "error": {
          errors.push(l.data.message);
          const retry = RECONNECTING.exec(l.data.message);
          if (!retry) return [];
          const why = retry[3]!;
          const shown: StreamEvent = {
            type: "ApiRetry",
            attempt: Number(retry[1]),
            max_retries: Number(retry[2]),
            delay_ms: null,
            status: Number(/\bstatus (\d{3})\b/.exec(why)?.[1] ?? NaN) || null,
            error: why,
          };
          // Refused credentials are retried five times over seconds: end the run on the first.
          return FORMS.auth.test(why) ? [shown, ...judge(why)] : [shown];
        }
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
  // A provider's base_url set in config.toml is not read here: give its host with --sandbox-allow.
  sandbox: {
    state: (env, home) => [env.CODEX_HOME || join(home, ".codex")],
    config: (env, home) => ["config.toml", "AGENTS.md", "prompts"].map((f) => join(env.CODEX_HOME || join(home, ".codex"), f)),
    env: ["OPENAI_*", "CODEX_*"],
    api: (env) => env.OPENAI_BASE_URL || "https://api.openai.com",
  },
};
