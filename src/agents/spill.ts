/**
 * Spilled texts: a Message's text or a Done's final text too long to hold (see long-line.ts). The
 * event carries the text's head and, as data (`spilled`), where the whole of it is; the event log
 * copies it from there.
 */
import { appendFileSync, closeSync, openSync, readSync } from "node:fs";
import { findFinalTag, promiseIn, type AgentPromise, type FinalTag } from "./promise.ts";
import type { Spilled, StreamEvent } from "./stream.ts";

export interface Spill {
  /** The iteration log, and the byte range of the string's JSON-escaped content in it. */
  path: string;
  start: number;
  end: number;
  /** The decoded text's length in UTF-16 units, as `string.length` would say. */
  chars: number;
  head: string;
  /** The promise or review tag that ends the text, if any (outcome.ts rules). */
  ending(): FinalTag | null;
}

/** How much of a spilled text is kept to show (the renderer shows no more). */
export const HEAD_CHARS = 64 * 1024;
/** What stands for a spilled string in the line the adapter's parser sees. */
export const SENTINEL = "\u0000wt-loop-long:";
const SENTINEL_RE = /\u0000wt-loop-long:(\d+)/g;

/** The spill of `found` an event's `spilled` facts name, for the promise its text ends with. */
export const spillOf = (event: { spilled?: Spilled }, found: Spill[]): Spill | undefined =>
  event.spilled && found.find((s) => s.path === event.spilled!.path && s.start === event.spilled!.start);

/** Gives the parser's events of a reduced line their spills back, as their `spilled` facts. */
export function withSpills(events: StreamEvent[], found: Spill[]): StreamEvent[] {
  // A sentinel inside a longer text (an adapter that joins pieces) can only be shown by its head.
  const heads = (text: string) => text.replace(SENTINEL_RE, (_, i: string) => `${found[Number(i)]?.head ?? ""}[…]`);
  for (const e of events) {
    if (e.type === "ToolUse") {
      if (e.summary.includes(SENTINEL)) e.summary = heads(e.summary).slice(0, 200);
      continue;
    }
    if (e.type === "ApiRetry" || e.type === "Unavailable") continue; // short texts the adapter made
    const text = e.type === "Message" ? e.text : e.final_text;
    const exact = /^\u0000wt-loop-long:(\d+)$/.exec(text);
    const spill = exact ? found[Number(exact[1])] : undefined;
    const shown = spill ? spill.head : text.includes(SENTINEL) ? heads(text) : text;
    if (spill) e.spilled = { chars: spill.chars, path: spill.path, start: spill.start, end: spill.end };
    if (e.type === "Message") e.text = shown;
    else e.final_text = shown;
  }
  return events;
}

/** The tag that ends an event's text: its spill's (found by the event's `spilled` facts), or the text's own. */
export function endingOf(event: ({ text: string } | { final_text: string }) & { spilled?: Spilled }, found: Spill[]): FinalTag | null {
  const spill = spillOf(event, found);
  return spill ? spill.ending() : findFinalTag("text" in event ? event.text : event.final_text);
}

/** The promise that ends an event's text (see endingOf). */
export const promiseOf = (event: Parameters<typeof endingOf>[0], found: Spill[]): AgentPromise | null => promiseIn(endingOf(event, found));

const MARK = "\u0001wt-loop-spill\u0001";
const MARK_JSON = JSON.stringify(MARK).slice(1, -1);
const COPY = 1 << 20;

/**
 * Appends an event-log record whose StoryEvent's text was spilled: the text's bytes are copied from
 * the iteration log, a megabyte at a time, and the `spilled` facts are kept beside it. False when
 * the record has no spilled text (the caller writes it).
 */
export function appendSpilled(fd: number, record: { type: string; event?: unknown }): boolean {
  const event = record.type === "StoryEvent" ? (record.event as StreamEvent) : null;
  const spill = event && (event.type === "Message" || event.type === "Done") ? event.spilled : undefined;
  if (!event || !spill) return false;
  const field = event.type === "Done" ? "final_text" : "text";
  const [before, after] = JSON.stringify({ ...record, event: { ...event, [field]: MARK } }).split(MARK_JSON) as [string, string];
  appendFileSync(fd, before);
  const src = openSync(spill.path, "r");
  try {
    const buf = Buffer.allocUnsafe(COPY);
    for (let at = spill.start; at < spill.end; ) {
      const got = readSync(src, buf, 0, Math.min(COPY, spill.end - at), at);
      if (got <= 0) throw new Error(`${spill.path} is shorter than the message it held`);
      appendFileSync(fd, buf.subarray(0, got));
      at += got;
    }
  } finally {
    closeSync(src);
  }
  appendFileSync(fd, after + "\n");
  return true;
}
