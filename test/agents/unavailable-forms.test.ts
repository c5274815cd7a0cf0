// Each adapter's reading of its agent's refusals, on lines captured from the real CLIs (claude
// 2.1.329, codex-cli and gemini-cli as pinned) against the scripted servers; shortened, not edited.
import { describe, expect, test } from "bun:test";
import { claudeParser } from "../../src/agents/claude.ts";
import { codexParser } from "../../src/agents/codex.ts";
import { geminiParser } from "../../src/agents/gemini.ts";
import type { OutputParser } from "../../src/agents/adapter.ts";
import type { StreamEvent } from "../../src/agents/stream.ts";

function feed(parser: OutputParser, lines: string[], exitCode: number): StreamEvent[] {
  return [...lines.flatMap((l) => parser.line(l)), ...parser.end(exitCode)];
}
const verdicts = (events: StreamEvent[]) => events.filter((e) => e.type === "Unavailable");

const CLAUDE_429 = [
  '{"type":"assistant","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Request rejected (429) · Claude AI usage limit reached|1795432673"}]},"error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error_type":"rate_limit_error"}',
  '{"duration_api_ms":0,"total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"terminal_reason":"api_error","is_error":true,"num_turns":1,"subtype":"success","api_error_status":429,"api_error_type":"rate_limit_error","result":"API Error: Request rejected (429) · Claude AI usage limit reached|1795432673","type":"result"}',
];
const CLAUDE_NET = [
  '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":539,"error_status":null,"error":"unknown"}',
  '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"}]},"error":"server_error","api_error_status":null}',
  '{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":null,"result":"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)"}',
];
const CLAUDE_401 = [
  '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":538,"error_status":401,"error":"authentication_failed"}',
];
const CLAUDE_403 = [
  '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"Failed to authenticate. API Error: 403 forbidden"}]},"error":"authentication_failed"}',
  '{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":403,"result":"Failed to authenticate. API Error: 403 forbidden"}',
];
const CLAUDE_529_RETRIED = [
  '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":552,"error_status":529,"error":"overloaded"}',
  '{"type":"assistant","message":{"content":[{"type":"text","text":"Hello <promise>COMPLETE</promise>"}]}}',
  '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Hello <promise>COMPLETE</promise>"}',
];
const CLAUDE_400 = [
  '{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":400,"result":"API Error: 400 prompt is too long"}',
];
const CLAUDE_LIMIT_EVENT = [
  '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795500000,"rateLimitType":"five_hour"}}',
  '{"type":"assistant","message":{"content":[{"type":"text","text":"You\'ve hit your limit"}]},"error":"rate_limit"}',
  '{"type":"result","subtype":"success","is_error":true,"terminal_reason":"api_error","api_error_status":429,"result":"You\'ve hit your limit"}',
];

const codexFail = (message: string) => [
  `{"type":"error","message":${JSON.stringify(message)}}`,
  `{"type":"turn.failed","error":{"message":${JSON.stringify(message)}}}`,
];
const geminiError = (message: string) => [
  `{"type":"result","timestamp":"2026-11-23T10:23:32.309Z","status":"error","error":{"type":"unknown","message":${JSON.stringify(message)}},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0}}`,
];

describe("the adapters classify refused runs", () => {
  test.each([
    ["claude: hard 429 with a usage-limit reset", claudeParser, CLAUDE_429, 1, "unavailable", "Request rejected (429)", "2026-11-23T11:17:53.000Z"],
    ["claude: network failure after its own retries", claudeParser, CLAUDE_NET, 1, "unavailable", "ECONNREFUSED", null],
    ["claude: 401 on the first retry line", claudeParser, CLAUDE_401, 0, "auth", "claude /login", null],
    ["claude: 403", claudeParser, CLAUDE_403, 1, "auth", "403 forbidden", null],
    ["claude: rate_limit_event's resetsAt", claudeParser, CLAUDE_LIMIT_EVENT, 1, "unavailable", "hit your limit", "2026-11-24T06:00:00.000Z"],
    ["codex: 429 after its retries", codexParser, codexFail("exceeded retry limit, last status: 429 Too Many Requests"), 1, "unavailable", "429", null],
    [
      "codex: 5xx",
      codexParser,
      codexFail("unexpected status 503 Service Unavailable: Service unavailable, url: http://127.0.0.1:1/v1/responses"),
      1,
      "unavailable",
      "503",
      null,
    ],
    [
      "codex: high demand",
      codexParser,
      codexFail("We’re currently experiencing high demand, which may cause temporary errors."),
      1,
      "unavailable",
      "high demand",
      null,
    ],
    [
      "codex: stream rate limit with a delay",
      codexParser,
      codexFail("rate limit exceeded: Rate limit reached. Please try again in 20s."),
      1,
      "unavailable",
      "20s",
      "delay",
    ],
    [
      "codex: 401 on the first Reconnecting line",
      codexParser,
      [
        '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses)"}',
      ],
      0,
      "auth",
      "codex login",
      null,
    ],
    ["codex: missing key", codexParser, codexFail("Missing environment variable: `WT_LOOP_TEST_KEY`."), 1, "auth", "Missing environment variable", null],
    ["codex: API quota (billing)", codexParser, codexFail("Quota exceeded. Check your plan and billing details."), 1, "auth", "Quota exceeded", null],
    [
      "gemini: daily quota",
      geminiParser,
      geminiError(
        "[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method",
      ),
      1,
      "unavailable",
      "daily quota",
      null,
    ],
    [
      "gemini: 401",
      geminiParser,
      geminiError('[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED","details":[]}}]'),
      1,
      "auth",
      "GEMINI_API_KEY",
      null,
    ],
    [
      "gemini: 403",
      geminiParser,
      geminiError('[API Error: {"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED","details":[]}}]'),
      1,
      "auth",
      "PERMISSION_DENIED",
      null,
    ],
    [
      "gemini: 503",
      geminiParser,
      geminiError('[API Error: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE","details":[]}}]'),
      1,
      "unavailable",
      "overloaded",
      null,
    ],
    ["gemini: no key (exit 41, nothing on stdout)", geminiParser, [], 41, "auth", "exited with code 41", null],
  ] as const)("%s", (_, parser, lines, exitCode, kind, says, reset) => {
    const before = Date.now();
    const [v, ...more] = verdicts(feed(parser(), [...lines], exitCode));
    expect(more).toEqual([]); // one verdict per run
    expect(v).toMatchObject({ kind });
    expect(v!.reason).toContain(says);
    if (reset === "delay") expect(Date.parse(v!.reset_at!) - before).toBeGreaterThanOrEqual(20_000);
    else expect(v!.reset_at).toBe(reset);
  });

  test.each([
    ["claude: 529 retried by the CLI, then a normal run", claudeParser, CLAUDE_529_RETRIED, 0],
    ["claude: a 400 is the agent's failure, not the service's", claudeParser, CLAUDE_400, 1],
    ["codex: an ordinary failed turn", codexParser, codexFail("the sandbox denied a command"), 1],
    ["gemini: an ordinary error", geminiParser, geminiError("[API Error: request contains an invalid argument]"), 1],
    ["gemini: a turn limit (exit 53)", geminiParser, [], 53],
  ] as const)("%s: a normal outcome", (_, parser, lines, exitCode) => {
    expect(verdicts(feed(parser(), [...lines], exitCode))).toEqual([]);
  });

  test("the CLIs' own retries become ApiRetry events", () => {
    expect(feed(claudeParser(), [CLAUDE_529_RETRIED[0]!], 0)[0]).toEqual({
      type: "ApiRetry",
      attempt: 1,
      max_retries: 10,
      delay_ms: 552,
      status: 529,
      error: "overloaded",
    });
    const codex = feed(codexParser(), ['{"type":"error","message":"Reconnecting... 2/5 (unexpected status 503 Service Unavailable: down)"}'], 0);
    expect(codex[0]).toEqual({
      type: "ApiRetry",
      attempt: 2,
      max_retries: 5,
      delay_ms: null,
      status: 503,
      error: "unexpected status 503 Service Unavailable: down",
    });
  });
});
