/**
 * Text measured and cut the way a terminal shows it: by display columns (a CJK character or an emoji takes two),
 * never inside a grapheme cluster (an emoji with its modifiers, a letter with its accents, a flag), and wrapped at
 * spaces so a word is not broken unless it is longer than a row. Every place that wraps or cuts text for a
 * terminal (the screens, the receipt's table, a field of `status`) does it here, so they agree.
 */

/**
 * How the terminal counts: by grapheme cluster (a family emoji of three joined emoji is two columns), or by code
 * point, wcwidth of each (six: tmux 3.x lays text out so, and the screen's renderer then measures so too). The
 * screen sets it once its renderer says (screen/load.ts); plain output and the line stream keep clusters.
 */
let byCodePoint = false;
let generation = 0;

/** Measure by code point (true) or by grapheme cluster (false) from now on. */
export function measureByCodePoint(on: boolean): void {
  if (on === byCodePoint) return;
  byCodePoint = on;
  generation++;
}

/**
 * `text` as the screen hands it to its renderer. By code point, without its zero-width joiners: the renderer then
 * counts a family emoji as three emoji of two columns, but tmux 3.3a still joins them into one of two, and never
 * redraws the four cells the renderer thinks they cover (stale characters beside it). Unjoined, the terminal too
 * shows three emoji in six columns. The width is the same either way (a joiner takes none).
 */
export const drawn = (text: string): string => (byCodePoint && text.includes("\u200d") ? text.replaceAll("\u200d", "") : text);

/** Moves each time the method changes: a cache of measures made under another generation is stale. */
export const widthGeneration = (): number => generation;

// Printable ASCII: one character is one cluster of one column, the common case, without the segmenter.
const ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes on a terminal (escape sequences take none; callers pass inert text). */
export function cells(text: string): number {
  if (!byCodePoint || ASCII.test(text)) return Bun.stringWidth(text);
  let n = 0;
  for (const c of text) n += Bun.stringWidth(c);
  return n;
}

// Made when first needed: building one loads ICU's break rules (a few ms), which a `status` of
// ASCII text never needs (docs/performance.md).
let segmenter: Intl.Segmenter | undefined;

/**
 * The grapheme clusters of `text`, with their columns. By code point: each code point with the zero-width ones after
 * it (a joiner, an accent, a variation selector), which the terminal draws in its cell.
 */
export function* graphemes(text: string): Generator<{ g: string; at: number; w: number }> {
  if (ASCII.test(text)) {
    for (let i = 0; i < text.length; i++) yield { g: text[i]!, at: i, w: 1 };
    return;
  }
  if (byCodePoint) {
    let unit = { g: "", at: 0, w: 0 };
    let at = 0;
    for (const c of text) {
      const w = Bun.stringWidth(c);
      if (w > 0 && unit.g) {
        yield unit;
        unit = { g: "", at, w: 0 };
      }
      unit.g += c;
      unit.w += w;
      at += c.length;
    }
    if (unit.g) yield unit;
    return;
  }
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const s of segmenter.segment(text)) yield { g: s.segment, at: s.index, w: Bun.stringWidth(s.segment) };
}

/** How many UTF-16 units of `text` fit in `cols` columns, cut between clusters. */
function fitting(text: string, cols: number): { end: number; used: number } {
  if (ASCII.test(text)) return { end: Math.min(text.length, Math.max(0, cols)), used: Math.min(text.length, Math.max(0, cols)) };
  let used = 0;
  for (const { at, w } of graphemes(text)) {
    if (used + w > cols) return { end: at, used };
    used += w;
  }
  return { end: text.length, used };
}

/** `text` cut to at most `cols` columns, between clusters (nothing added). */
export function clip(text: string, cols: number): string {
  if (cols <= 0) return "";
  if (cells(text) <= cols) return text;
  return text.slice(0, fitting(text, cols).end);
}

/** `text` in at most `cols` columns, ending in `…` when it was cut. */
export function cut(text: string, cols: number): string {
  if (cols <= 0) return "";
  if (cells(text) <= cols) return text;
  return `${text.slice(0, fitting(text, cols - 1).end)}…`;
}

/** `text` cut (with `…`) or padded with spaces to exactly `cols` columns. */
export function fit(text: string, cols: number): string {
  if (cols <= 0) return "";
  const shown = cut(text, cols);
  return shown + " ".repeat(Math.max(0, cols - cells(shown)));
}

/** `text` padded with spaces to `cols` columns (never cut). */
export const padCells = (text: string, cols: number): string => text + " ".repeat(Math.max(0, cols - cells(text)));

/** One row of a wrapped line: `text.slice(start, end)`, after `indent` spaces on a continuation row. */
export interface WrapRow {
  start: number;
  end: number;
  indent: number;
}

/**
 * One line (no newline in it) broken into rows of at most `cols` columns: at spaces (the spaces at a break are
 * dropped), a word longer than a row cut between its clusters. Continuation rows keep the line's leading indent
 * (up to half the row), so a wrapped list item stays under its text.
 */
export function wrapPlan(line: string, cols: number): WrapRow[] {
  const width = Math.max(1, cols);
  if (cells(line) <= width) return [{ start: 0, end: line.length, indent: 0 }];
  const lead = /^ */.exec(line)![0].length;
  const indent = lead < width / 2 ? lead : 0;
  const rows: WrapRow[] = [];
  let row: WrapRow = { start: 0, end: 0, indent: 0 };
  let used = 0;
  const next = (at: number) => {
    while (row.end > row.start && line.charCodeAt(row.end - 1) === 32) row.end--; // the spaces before a break go with it
    rows.push(row);
    row = { start: at, end: at, indent };
    used = indent;
  };
  const words = /[^ ]+| +/g;
  for (let m = words.exec(line); m; m = words.exec(line)) {
    const token = m[0];
    const at = m.index;
    const w = cells(token);
    if (used + w <= width) {
      if (row.end === row.start && token[0] === " " && rows.length) {
        row.start = row.end = at + token.length; // a continuation row does not start with the break's spaces
        continue;
      }
      row.end = at + token.length;
      used += w;
    } else if (token[0] === " ") {
      next(at + token.length); // the break falls on the spaces
    } else if (w <= width - indent && row.end > row.start) {
      next(at);
      row.end = at + token.length;
      used += w;
    } else {
      // Longer than a row: cut between its clusters, filling the row it starts on.
      for (const { g, at: i, w: gw } of graphemes(token)) {
        if (used + gw > width && row.end > row.start) next(at + i);
        row.end = at + i + g.length;
        used += gw;
      }
    }
  }
  rows.push(row);
  return rows;
}

/** One line wrapped to `cols` columns, as the rows' text (continuation rows indented). */
export function wrapLine(line: string, cols: number): string[] {
  return wrapPlan(line, cols).map((r) => " ".repeat(r.indent) + line.slice(r.start, r.end));
}

/** Text of many lines wrapped to `cols` columns, as rows. */
export const wrapText = (text: string, cols: number): string[] => text.split("\n").flatMap((l) => wrapLine(l, cols));
