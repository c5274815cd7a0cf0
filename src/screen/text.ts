/** Lines for the selection screen and the preview: inert text, padded columns, wrapping to the body's width. */
import { inertLine } from "../term/inert.ts";
import type { Line, Span, Tone } from "./frame.ts";

export const span = (text: string, tone: Tone = "normal", bold = false): Span => ({ text: inertLine(text), tone, ...(bold ? { bold } : {}) });

const width = (s: string) => Bun.stringWidth(s);

/** `text` cut or padded to exactly `n` columns (a cut ends in …). */
export function fit(text: string, n: number): string {
  if (n <= 0) return "";
  const w = width(text);
  if (w <= n) return text + " ".repeat(n - w);
  let out = "";
  for (const ch of text) {
    if (width(out + ch) > n - 1) break;
    out += ch;
  }
  return out + "…" + " ".repeat(Math.max(0, n - 1 - width(out)));
}

/**
 * One line broken into rows of at most `cols` columns, at spaces where it can be; a word longer than
 * a row is cut. Continuation rows keep the line's leading indent, so a wrapped task stays under its box.
 */
export function wrap(line: Line, cols: number): Line[] {
  if (cols <= 0) return [line];
  const total = line.reduce((n, s) => n + width(s.text), 0);
  if (total <= cols) return [line];
  const indent = " ".repeat(Math.min(/^ */.exec(line[0]?.text ?? "")![0].length, Math.floor(cols / 2)));
  const rows: Line[] = [];
  let row: Line = [];
  let used = 0;
  const push = (text: string, s: Span) => {
    const last = row[row.length - 1];
    if (last && last.tone === s.tone && last.bold === s.bold) last.text += text;
    else row.push({ ...s, text });
    used += width(text);
  };
  const newRow = () => {
    rows.push(row);
    row = [];
    used = 0;
    if (indent) push(indent, { text: "", tone: "normal" });
  };
  for (const s of line)
    for (const token of s.text.match(/\S+|\s+/g) ?? []) {
      const w = width(token);
      if (used + w <= cols) push(token, s);
      else if (/^\s+$/.test(token))
        newRow(); // the break falls on the space
      else if (w <= cols - indent.length) {
        newRow();
        push(token, s);
      } else
        for (const ch of token) {
          if (used + width(ch) > cols) newRow();
          push(ch, s);
        }
    }
  rows.push(row);
  return rows;
}

/** Text (many lines, from a file or the prompt) as Lines in one tone. */
export const textLines = (text: string, tone: Tone = "normal"): Line[] => text.split("\n").map((l) => [span(l, tone)]);

/** The visible window of `lines` for a body of `rows` rows, starting at `top` (clamped). */
export function windowOf(lines: Line[], top: number, rows: number) {
  const max = Math.max(0, lines.length - rows);
  const t = Math.min(Math.max(0, top), max);
  return { lines: lines.slice(t, t + rows), top: t, total: lines.length, following: t >= max };
}
