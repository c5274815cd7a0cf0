/**
 * What every agent's output is normalized into (docs/agents.md). Adapters produce these; the renderer,
 * the outcome classifier and the event log consume them and know nothing of any agent's format.
 */
import { z } from "zod";
import { Tokens } from "../state/schema.ts";
import { described } from "../state/described.ts";

/**
 * A text too long to hold (agents/long-line.ts): the event's text is only its head; the whole of it
 * is the JSON-escaped byte range `start`–`end` of the iteration log at `path`. The event log holds
 * the whole text, with these facts beside it.
 */
export const Spilled = z.object({
  chars: described(z.number().int().nonnegative(), "the whole text's length (UTF-16 units)"),
  path: described(z.string(), "the iteration log that holds the whole text"),
  start: described(z.number().int().nonnegative(), "where the text's JSON-escaped bytes begin in that log"),
  end: described(z.number().int().nonnegative(), "where they end"),
});
export type Spilled = z.infer<typeof Spilled>;

const spilled = described(
  Spilled.optional(),
  "present when the text was too long to hold in memory (a huge single-line message): its length and where the whole of it is in the iteration log; " +
    "the event log holds the whole text anyway",
);

export const MessageEvent = z.object({
  type: described(z.literal("Message"), "Text the agent wrote."),
  text: described(z.string(), "the whole message, never truncated"),
  spilled,
});
export const ToolUseEvent = z.object({
  type: described(z.literal("ToolUse"), "The agent called a tool."),
  name: described(z.string(), "the tool"),
  summary: described(z.string(), "one line of its input: the field a person would look at first"),
});
export const DoneEvent = z.object({
  type: described(z.literal("Done"), "The agent's run ended."),
  final_text: described(z.string(), "the agent's final message: where the promise is looked for"),
  turns: described(z.number().int().nonnegative().nullable(), "turns, when the agent reports them"),
  tokens: Tokens.describe("the run's tokens by category"),
  cost_usd: described(z.number().nonnegative().nullable(), "cost in US dollars; null for agents that report none"),
  is_error: described(z.boolean(), "the agent reported its run as an error"),
  errors: described(z.array(z.string()), "the errors it reported"),
  spilled,
});

/** The agent CLI retries an API call by itself (Claude's `api_retry`, Codex's "Reconnecting… n/m"); shown, not acted on. */
export const ApiRetryEvent = z.object({
  type: described(z.literal("ApiRetry"), "The agent CLI retries an API call by itself; shown, not acted on."),
  attempt: described(z.number().int().nullable(), "the CLI's retry number"),
  max_retries: described(z.number().int().nullable(), "how many it will make"),
  delay_ms: described(z.number().nonnegative().nullable(), "its wait before the retry"),
  status: described(z.number().int().nullable(), "the HTTP status that caused it"),
  error: described(z.string(), "the error, as the CLI names it"),
});
/**
 * The adapter's verdict that the run could not work through no fault of the agent: the service is
 * unavailable (a rate or usage limit, overload, network, 5xx: wait and try again) or refused the
 * credentials (`auth`: waiting will not help). `reset_at` is when the agent said the limit resets.
 */
export const UnavailableEvent = z.object({
  type: described(
    z.literal("Unavailable"),
    "The adapter's verdict that the service refused the run (a limit, overload, the network, a 5xx; or the credentials).",
  ),
  kind: described(z.enum(["unavailable", "auth"]), "`unavailable`: wait and try again; `auth`: waiting will not help"),
  reason: described(z.string(), "the agent's words"),
  reset_at: described(z.iso.datetime({ offset: true }).nullable(), "when the agent said the limit resets"),
});

export const StreamEvent = z.discriminatedUnion("type", [MessageEvent, ToolUseEvent, DoneEvent, ApiRetryEvent, UnavailableEvent]);
export type StreamEvent = z.infer<typeof StreamEvent>;
export type DoneEvent = z.infer<typeof DoneEvent>;
export type MessageEvent = z.infer<typeof MessageEvent>;
export type UnavailableEvent = z.infer<typeof UnavailableEvent>;
