/** Lines for the selection screen and the preview: inert text, padded columns, wrapping to the body's width. */
import { inertLine } from "../term/inert.ts";
import { cells, cut, wrapPlan } from "../text/width.ts";
import type { Frame, Line, Span, Tone } from "./frame.ts";

export const span = (text: string, tone: Tone = "normal", bold = false): Span => ({ text: inertLine(text), tone, ...(bold ? { bold } : {}) });

export { fit } from "../text/width.ts";

/**
 * One line of spans broken into rows of at most `cols` columns, at words (text/width.ts wrapPlan); a word longer
 * than a row is cut between its characters. Continuation rows keep the line's leading indent, so a wrapped task
 * stays under its box.
 */
export function wrap(line: Line, cols: number): Line[] {
  if (cols <= 0) return [line];
  const whole = line.map((s) => s.text).join("");
  const plan = wrapPlan(whole, cols);
  if (plan.length === 1) return [line];
  return plan.map((r) => {
    const row: Line = r.indent ? [{ text: " ".repeat(r.indent), tone: "normal" }] : [];
    let at = 0;
    for (const s of line) {
      const [from, to] = [Math.max(r.start, at), Math.min(r.end, at + s.text.length)];
      if (from < to) row.push({ ...s, text: s.text.slice(from - at, to - at) });
      at += s.text.length;
    }
    return row;
  });
}

/**
 * Key hints (`q quit`) on one line of `cols` columns: the least needed go first (a lower `keep`), so the ones
 * every screen needs (leave, `?` for all the keys) stay at 80 columns and below; what is left keeps its order.
 */
export function hintLine(hints: [text: string, keep: number][], cols: number): string {
  const kept = [...hints];
  const text = () => kept.map(([t]) => t).join(" · ");
  while (kept.length > 1 && cells(text()) > cols) {
    const least = kept.reduce((low, h, i) => (h[1] < kept[low]![1] ? i : low), 0);
    kept.splice(least, 1);
  }
  return cut(text(), cols);
}

/** An overlay's lines wrapped to what a screen `cols` wide leaves inside its box (its border and margins). */
export function wrapOverlay(o: Frame["overlay"], cols: number): Frame["overlay"] {
  if (!o) return o;
  return { ...o, lines: o.lines.flatMap((l) => wrap(l, Math.max(1, cols - 4))) };
}

/** Text (many lines, from a file or the prompt) as Lines in one tone. */
export const textLines = (text: string, tone: Tone = "normal"): Line[] => text.split("\n").map((l) => [span(l, tone)]);

/** The visible window of `lines` for a body of `rows` rows, starting at `top` (clamped). */
export function windowOf(lines: Line[], top: number, rows: number) {
  const max = Math.max(0, lines.length - rows);
  const t = Math.min(Math.max(0, top), max);
  return { lines: lines.slice(t, t + rows), top: t, total: lines.length, following: t >= max };
}
