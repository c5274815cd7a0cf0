/** How numbers look to a human: durations, token counts, money. */
import { cells, clip, cut } from "./width.ts";

// formatDuration and formatTokens run once a row for `history`'s 500 rows at start-up, in the interpreter:
// arithmetic and one template each, no padStart, no regular expression (test/text/number-format.test.ts
// holds them to what they were).

export function formatDuration(ms: number): string {
  if (typeof ms !== "number" || !(ms >= 0) || ms === Number.POSITIVE_INFINITY) return "-";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) {
    const r = s % 60;
    return `${m}m ${r < 10 ? "0" : ""}${r}s`;
  }
  const r = m % 60;
  return `${Math.floor(m / 60)}h ${r < 10 ? "0" : ""}${r}m`;
}

/** "1,234,567". Not toLocaleString: its first call loads ICU, ~1.5 ms of every `status` (docs/performance.md). */
export function formatTokens(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  let v = n < 0 ? -n : n;
  if (v < 1000) return String(n);
  // Up to a billion (an iteration's tokens, a loop's), one template.
  if (n > 0 && v < 1_000_000_000) {
    const r = v % 1000;
    const k = (v - r) / 1000;
    if (k < 1000) return `${k},${r < 100 ? (r < 10 ? "00" : "0") : ""}${r}`;
    const q = k % 1000;
    return `${(k - q) / 1000},${q < 100 ? (q < 10 ? "00" : "0") : ""}${q},${r < 100 ? (r < 10 ? "00" : "0") : ""}${r}`;
  }
  let groups = "";
  while (v >= 1000) {
    const r = v % 1000;
    groups = `,${r < 100 ? (r < 10 ? "00" : "0") : ""}${r}${groups}`;
    v = (v - r) / 1000;
  }
  return `${n < 0 ? "-" : ""}${v}${groups}`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "-";
  return `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;
}

/** A loop's total: "-" when nothing was reported (agents without a cost, like Codex and Gemini, report none). */
export const formatTotalCost = (usd: number) => (usd > 0 ? formatCost(usd) : "-");

export const between = (a: string, b: string | null | undefined, now = Date.now()) => (b ? Date.parse(b) : now) - Date.parse(a);

/**
 * Plain fixed-width columns (by display columns); the last column is not padded. `history` lays out
 * 500 rows of 11 at start-up, before the JIT has compiled anything: every operation a cell costs is paid
 * 5,500 times in the interpreter. So: indexed loops, each cell measured once (Bun.stringWidth, the same
 * measure as text/width.ts `cells`) into one flat list, a cell padded by one native `padEnd` (the
 * padding is spaces counted in columns: `padEnd` counts UTF-16 units, so the length is the cell's own
 * plus the columns missing), a row joined by one native `join`.
 */
export function table(rows: string[][]): string {
  const measure = Bun.stringWidth;
  // The first row's columns are padded; a cell past them is not.
  const cols = rows.length ? rows[0]!.length : 0;
  const widths: number[] = [];
  for (let i = 0; i < cols; i++) widths.push(0);
  const measured: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let i = 0; i < row.length; i++) {
      const w = measure(row[i]!);
      measured.push(w);
      if (i < cols && w > widths[i]!) widths[i] = w;
    }
  }
  const lines: string[] = [];
  let k = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const padded = Math.min(row.length - 1, cols);
    const parts: string[] = [];
    let i = 0;
    for (; i < padded; i++) {
      const cell = row[i]!;
      const short = widths[i]! - measured[k++]!;
      parts.push(short > 0 ? cell.padEnd(cell.length + short) : cell);
    }
    for (; i < row.length; i++, k++) parts.push(row[i]!);
    lines.push(parts.join("  ").trimEnd());
  }
  return lines.join("\n");
}

/** "1 iteration", "2 iterations": a count with its noun. */
export const plural = (n: number, noun: string, many = `${noun}s`) => `${formatTokens(n)} ${n === 1 ? noun : many}`;

/** "2026-11-23 07:50:01 UTC": a date and time a reader in any time zone can read unambiguously. */
export const utcDateTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/**
 * `text` cut to `width` columns (text/width.ts: a wide character takes two, never cut in half), ending in "…" when cut. With `more`, the cut also says how many
 * characters were left out and where the whole value is (`more.rest`, e.g. "--json has all"), and
 * with `more.firstLine` only the first line is kept: a field of a state can hold megabytes (a task
 * pasted whole, a failure reason with a tool's output), and a reader wants its start, not all of it.
 */
export function truncate(text: string, width: number, more?: { rest: string; firstLine?: boolean }): string {
  if (!more) return cut(text, width);
  const end = more.firstLine ? text.indexOf("\n") : -1;
  const line = end === -1 ? text : text.slice(0, end);
  const flat = line.replace(/\n/g, " "); // a kept line break counts one column, as before the next line
  const kept = cells(flat) <= width ? line : line.slice(0, clip(flat, Math.max(0, width - 1)).length);
  if (kept.length === text.length) return text;
  return `${kept}… (${formatTokens(text.length - kept.length)} more characters; ${more.rest})`;
}

/** How wide a field of human output may be when it is not on a terminal (a script reads --json). */
const PIPED_FIELD_WIDTH = 300;

/** A field of human output (`status`, `log`, `history`): its first line, cut to the terminal's width. */
export const field = (text: string, width = PIPED_FIELD_WIDTH) => truncate(text, width, { rest: "--json has all", firstLine: true });

/** A time of day to show (the local clock), with the date when it is not within the next 20 hours. */
export function clockTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return ms - now < 20 * 3_600_000 ? hm : `${d.toLocaleDateString("en-US", { month: "short", day: "numeric" })} ${hm}`;
}

/** `maxRetries` ↔ `max-retries`: an option's key in code and its name on the command line and in files. */
export const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
export const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
