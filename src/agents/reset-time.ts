/**
 * When an agent's limit resets, read from the text it printed. The forms are the agents' own:
 * Claude's `Claude AI usage limit reached|<epoch seconds>` and `You've hit your limit · resets 7pm
 * (Asia/Shanghai)`, Codex's `try again at 11:18 AM` / `try again at Nov 25th, 2026 11:22 AM` (the
 * machine's local time), and delays such as Gemini's `Please retry in 43s` / `Suggested retry after
 * 43s`. A wall-clock time is turned into an instant in its named zone (else the local one) with Intl,
 * so a reset "at 7pm (Asia/Shanghai)" is right wherever the loop runs. Null when no form matches.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const JUST_PASSED_MS = 10 * 60_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** A wall-clock reset; groups: month, day, year, hour, minute, a or p, zone. */
const RESET_AT = new RegExp(
  "(?:\\bresets?|try again at)\\s+(?:at\\s+|on\\s+)?" + // "resets 7pm", "try again at 11:18 AM"
    "(?:([a-z]{3})[a-z]*\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(?:(\\d{4}),?\\s+)?(?:at\\s+)?)?" + // "Nov 25th, 2026 "
    "(\\d{1,2})(?::(\\d{2}))?\\s*([ap])?\\.?m?\\.?" + // "11:22 AM", "7pm"
    "(?:\\s*\\(([^)]+)\\))?", // "(Asia/Shanghai)"
  "i",
);

export function resetTimeIn(text: string, now: Date = new Date()): Date | null {
  const epoch = /\|(\d{10})\b/.exec(text);
  if (epoch) return new Date(Number(epoch[1]) * 1000);
  const delay = /(?:retry|try again)\s+(?:in|after)\s+(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b/i.exec(text);
  if (delay) {
    const unit = delay[2]!.toLowerCase();
    const ms = unit === "ms" ? 1 : UNIT_MS[unit[0]!]!;
    return new Date(now.getTime() + Number(delay[1]) * ms);
  }
  const at = RESET_AT.exec(text);
  if (!at || (at[5] === undefined && at[6] === undefined)) return null; // "resets 5" is not a time
  let hour = Number(at[4]);
  const minute = Number(at[5] ?? 0);
  const half = at[6]?.toLowerCase();
  if (hour > 23 || minute > 59 || (half && (hour < 1 || hour > 12))) return null;
  if (half === "p" && hour < 12) hour += 12;
  if (half === "a" && hour === 12) hour = 0;
  const zone = validZone(at[7]?.trim());
  const today = wallDate(now.getTime(), zone);
  if (at[1]) {
    const month = MONTHS.indexOf(at[1].toLowerCase());
    if (month < 0) return null;
    const day = Number(at[2]);
    let t = zonedInstant(Number(at[3] ?? today.year), month, day, hour, minute, zone);
    if (!at[3] && t < now.getTime() - 86_400_000) t = zonedInstant(today.year + 1, month, day, hour, minute, zone);
    return new Date(t);
  }
  // A time of day alone is its next occurrence, unless it has only just passed: the texts give
  // minutes, so a limit that resets within this minute reads as a moment ago (not as tomorrow).
  let t = zonedInstant(today.year, today.month, today.day, hour, minute, zone);
  if (t <= now.getTime() - JUST_PASSED_MS) t = zonedInstant(today.year, today.month, today.day + 1, hour, minute, zone);
  return new Date(t);
}

/** A zone Intl knows, else undefined (the local zone). */
function validZone(name: string | undefined): string | undefined {
  if (!name) return undefined;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name;
  } catch {
    return undefined;
  }
}

function wallParts(t: number, zone: string | undefined) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get("year"), month: get("month") - 1, day: get("day"), hour: get("hour"), minute: get("minute"), second: get("second") };
}

function wallDate(t: number, zone: string | undefined) {
  const p = wallParts(t, zone);
  return { year: p.year, month: p.month, day: p.day };
}

/** The zone's offset from UTC at instant `t`, in ms. */
function offsetAt(t: number, zone: string | undefined): number {
  const p = wallParts(t, zone);
  return Date.UTC(p.year, p.month, p.day, p.hour, p.minute, p.second) - Math.floor(t / 1000) * 1000;
}

/** The instant a wall clock in `zone` shows this date and time (Date.UTC normalizes day overflow). */
function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, zone: string | undefined): number {
  const wall = Date.UTC(year, month, day, hour, minute);
  const first = wall - offsetAt(wall, zone);
  const second = wall - offsetAt(first, zone); // across a DST change the offset at the answer differs
  return second;
}
