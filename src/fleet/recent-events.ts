/**
 * The recent events of one story, read from the end of the event log so that a log of hundreds of
 * megabytes costs what the answer costs, and bounded: at most `limit` events, each message clipped
 * to `maxChars` characters (the iteration logs and the event log keep everything).
 */
import { open } from "node:fs/promises";
import { parseLoggedEvent, type Logged } from "../record/events.ts";

const CHUNK = 1 << 20;

/** Lines of a file from the last to the first. */
export async function* linesBackward(path: string): AsyncGenerator<string> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return;
    throw err;
  }
  try {
    let pos = (await fh.stat()).size;
    let rest: Buffer[] = []; // the start of a line whose beginning lies in an earlier chunk
    while (pos > 0) {
      const len = Math.min(CHUNK, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, pos);
      let end = len;
      for (let i = len - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        const line = Buffer.concat([buf.subarray(i + 1, end), ...rest]);
        rest = [];
        end = i;
        if (line.length) yield line.toString("utf8");
      }
      rest = [buf.subarray(0, end), ...rest];
    }
    const first = Buffer.concat(rest);
    if (first.length) yield first.toString("utf8");
  } finally {
    await fh.close();
  }
}

const storyOf = (e: Logged): string | null => ("story_id" in e ? e.story_id : null);

function clip(e: Logged, maxChars: number): { event: Logged; clipped: boolean } {
  if (e.type !== "StoryEvent") return { event: e, clipped: false };
  const inner = e.event;
  const text = inner.type === "Message" ? inner.text : inner.type === "Done" ? inner.final_text : null;
  if (text === null || text.length <= maxChars) return { event: e, clipped: false };
  const cut = `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters in the iteration log]`;
  const event = inner.type === "Message" ? { ...inner, text: cut } : { ...inner, final_text: cut };
  return { event: { ...e, event: event as typeof inner }, clipped: true };
}

export interface RecentEvents {
  story_id: string | null;
  events: Logged[];
  /** Older events of the story were left out (more than `limit`). */
  more: boolean;
  /** Some messages were clipped to `max_chars`. */
  clipped: boolean;
}

/**
 * The last `limit` events of story `storyId` (default: the story of the latest event that has one),
 * oldest first: the story's latest stretch of events in the run that started at `since` (earlier
 * runs' lines are left out), with the events without a story (Error, Complete) that fall among or
 * right after them. Reading stops at the event before that stretch.
 */
export async function recentEvents(path: string, o: { storyId?: string; since: string; limit: number; maxChars: number }): Promise<RecentEvents> {
  let story = o.storyId ?? null;
  const picked: Logged[] = []; // newest first
  let pending: Logged[] = []; // events without a story, later than the next event of the story we meet
  let more = false;
  let clipped = false;
  const since = Date.parse(o.since);
  const take = (e: Logged) => {
    if (picked.length >= o.limit) return ((more = true), false);
    const c = clip(e, o.maxChars); // before keeping it: a few huge messages must not add up
    clipped ||= c.clipped;
    picked.push(c.event);
    return true;
  };
  for await (const line of linesBackward(path)) {
    const e = parseLoggedEvent(line);
    if (!e) continue; // a torn last line while the log is being written
    if (Date.parse(e.ts) < since) break; // an earlier run's events
    const sid = storyOf(e);
    if (sid === null) pending.push(e);
    else if ((story ??= sid) !== sid) {
      // Another story's event. Before the story's latest events: what came after it is not ours.
      // Before them: they are all read (a story's attempts follow each other), so stop here.
      if (picked.length) break;
      pending = [];
    } else if (![...pending, e].every(take)) break;
    else pending = [];
  }
  return { story_id: story, events: picked.reverse(), more, clipped };
}
