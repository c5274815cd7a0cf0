/**
 * What every agent's output is normalized into (SPEC §7). Adapters produce these; the renderer,
 * the outcome classifier and the event log consume them and know nothing of any agent's format.
 */
import { z } from "zod";
import { Tokens } from "../state/schema.ts";

/**
 * A text too long to hold (agents/long-line.ts): the event's text is only its head; the whole of it
 * is the JSON-escaped byte range `start`–`end` of the iteration log at `path`. The event log holds
 * the whole text, with these facts beside it.
 */
export const Spilled = z
  .object({
    chars: z.number().int().nonnegative().describe("The whole text's length (UTF-16 units)"),
    path: z.string().describe("The iteration log the text is in"),
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
  })
  .describe("The text was too long to hold in memory: where the whole of it is in the iteration log");
export type Spilled = z.infer<typeof Spilled>;

export const MessageEvent = z.object({ type: z.literal("Message"), text: z.string(), spilled: Spilled.optional() });
export const ToolUseEvent = z.object({ type: z.literal("ToolUse"), name: z.string(), summary: z.string() });
export const DoneEvent = z.object({
  type: z.literal("Done"),
  final_text: z.string(),
  turns: z.number().int().nonnegative().nullable(),
  tokens: Tokens,
  cost_usd: z.number().nonnegative().nullable(),
  is_error: z.boolean(),
  errors: z.array(z.string()),
  spilled: Spilled.optional().describe("Set when final_text was too long to hold: see Spilled"),
});

/** The agent CLI retries an API call by itself (Claude's `api_retry`, Codex's "Reconnecting… n/m"); shown, not acted on. */
export const ApiRetryEvent = z.object({
  type: z.literal("ApiRetry"),
  attempt: z.number().int().nullable(),
  max_retries: z.number().int().nullable(),
  delay_ms: z.number().nonnegative().nullable(),
  status: z.number().int().nullable(),
  error: z.string(),
});
/**
 * The adapter's verdict that the run could not work through no fault of the agent: the service is
 * unavailable (a rate or usage limit, overload, network, 5xx: wait and try again) or refused the
 * credentials (`auth`: waiting will not help). `reset_at` is when the agent said the limit resets.
 */
export const UnavailableEvent = z.object({
  type: z.literal("Unavailable"),
  kind: z.enum(["unavailable", "auth"]),
  reason: z.string(),
  reset_at: z.iso.datetime({ offset: true }).nullable(),
});

export const StreamEvent = z.discriminatedUnion("type", [MessageEvent, ToolUseEvent, DoneEvent, ApiRetryEvent, UnavailableEvent]);
export type StreamEvent = z.infer<typeof StreamEvent>;
export type DoneEvent = z.infer<typeof DoneEvent>;
export type MessageEvent = z.infer<typeof MessageEvent>;
export type UnavailableEvent = z.infer<typeof UnavailableEvent>;

/** A one-line summary of a tool call's input: the field a human would look at first. */
export function summarizeInput(input: unknown, max = 100): string {
  if (input === null || typeof input !== "object") return input === undefined ? "" : clip(String(input), max);
  const obj = input as Record<string, unknown>;
  for (const key of ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt"]) {
    const v = obj[key];
    if (typeof v === "string" && v) return clip(v.split("\n")[0]!, max);
  }
  return clip(JSON.stringify(obj), max);
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max - 1) + "…" : s);
