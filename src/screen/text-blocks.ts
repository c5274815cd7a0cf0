/**
 * A tab's text as blocks (a message, a tool call, an attempt's separator) that may live on disk: a block
 * keeps the width of each of its lines, not the lines, so the wrapped height of a story with megabytes
 * of messages is known without holding them, and only the window on screen is read back and wrapped.
 * Lines are wrapped at words (text/width.ts): a line as narrow as the body is one row whatever its text,
 * and a wider one's rows are counted from its text once per width — when the block comes (its text is at
 * hand then) or, for a block read back from disk, when the width changes — and kept with the block.
 */
import { inert } from "../term/inert.ts";
import { cells, widthGeneration, wrapLine, wrapPlan } from "../text/width.ts";
import type { Line, Tone } from "./frame.ts";

export interface Block {
  tone: Tone;
  bold?: boolean;
  /** The text itself (small blocks), or null when `load` reads it back (a message in the event log). */
  text: string | null;
  load?: () => string;
  /** The cell width of each of its lines, as shown (inert, tabs expanded). */
  widths: Uint32Array;
  /** The widest line: a block no wider than the body is one row a line, counted without its text. */
  widest: number;
  /** A block read back from disk: its text while it is added to a list, which counts its rows with it and lets it go. */
  fresh?: string;
  /** Rows per line at `width`, counted from the text (only for a block wider than that). */
  wrapped?: { width: number; rows: Uint32Array };
  /** The width method's generation (text/width.ts) `widths` were measured in: measured again after it changed. */
  measured: number;
}

/** Untrusted text as it is shown: every control character visible, CRLF as LF, tabs as two spaces. */
export function shown(text: string): string {
  const t = inert(text.includes("\r") ? text.replace(/\r\n/g, "\n") : text);
  return t.includes("\t") ? t.replace(/\t/g, "  ") : t;
}

/** A block of text already made `shown`; `load` (when given) reads it back instead of keeping it. */
export function block(text: string, tone: Tone = "normal", o: { bold?: boolean; load?: () => string } = {}): Block {
  const { widths, widest } = measure(text.split("\n"));
  return { tone, bold: o.bold, text: o.load ? null : text, load: o.load, widths, widest, measured: widthGeneration(), ...(o.load ? { fresh: text } : {}) };
}

function measure(lines: string[]): { widths: Uint32Array; widest: number } {
  const widths = new Uint32Array(lines.length);
  let widest = 0;
  for (let i = 0; i < lines.length; i++) widest = Math.max(widest, (widths[i] = cells(lines[i]!)));
  return { widths, widest };
}

/**
 * A line wider than this many cells (minified code, base64, a log on one line) is cut at the width instead of
 * wrapped at words: its rows are then its width alone, and a window deep in it costs the window, not the line.
 */
const WORDS_UP_TO = 20_000;

const rowsOf = (cellsWide: number, width: number) => Math.max(1, Math.ceil(cellsWide / width));

/** The rows of one line at `width`: at words, or cut at the width past WORDS_UP_TO. */
function lineRows(line: string, width: number, wide: number): number {
  if (wide <= width) return 1;
  return wide > WORDS_UP_TO ? rowsOf(wide, width) : wrapPlan(line, width).length;
}

/** Rows `from`…`to` of one line that makes `rows` rows at `width`. */
function lineWindow(line: string, width: number, rows: number, from: number, to: number, wide: number): string[] {
  if (wide <= width) return from === 0 && to > 0 ? [line] : [];
  return wide > WORDS_UP_TO ? wrapRows(line, width, rows, from, to, wide) : wrapLine(line, width).slice(from, to);
}

/**
 * Rows `from`…`to` of one line (past WORDS_UP_TO) cut into rows of at most `width` cells; the line makes
 * exactly `rows` rows (the last takes any rest). A line as wide as it is long (ASCII, most text) is sliced,
 * so a window deep in a megabyte-long line costs the window.
 */
function wrapRows(line: string, width: number, rows: number, from: number, to: number, wide: number): string[] {
  if (rows === 1) return from === 0 && to > 0 ? [line] : [];
  if (wide === line.length) {
    const out: string[] = [];
    for (let i = from; i < Math.min(to, rows); i++) out.push(i === rows - 1 ? line.slice(i * width) : line.slice(i * width, (i + 1) * width));
    return out;
  }
  const out: string[] = [];
  let [row, text, used] = [0, "", 0];
  for (const ch of line) {
    const w = ch.charCodeAt(0) < 0x300 ? 1 : Bun.stringWidth(ch);
    if (used + w > width && row < rows - 1) {
      if (row >= from) out.push(text);
      [row, text, used] = [row + 1, "", 0];
      if (row >= to) return out;
    }
    text += ch;
    used += w;
  }
  for (; row < to; row++, text = "") if (row >= from) out.push(text);
  return out;
}

/** Blocks and their wrapped height at one width, kept up to date as blocks are added. */
export class BlockList {
  readonly blocks: Block[] = [];
  private width = 0;
  /** Rows before each block at `width`. */
  private before: number[] = [];
  private total = 0;
  /** The width method's generation the rows were counted in. */
  private measured = widthGeneration();
  /** The last blocks read back, split into lines: a frame after a key reads no disk twice. */
  private cache = new Map<Block, { lines: string[]; size: number }>();
  private cached = 0;

  push(b: Block): void {
    this.blocks.push(b);
    if (this.width && this.measured !== widthGeneration()) this.width = 0; // counted again, every block measured anew
    if (b.measured !== widthGeneration()) this.remeasure(b);
    if (this.width) {
      this.before.push(this.total);
      this.total += this.blockRows(b, this.width);
    }
    delete b.fresh; // counted: a block read back from disk holds no text from now on
  }

  clear(): void {
    this.blocks.length = 0;
    [this.width, this.before, this.total] = [0, [], 0];
    this.cache.clear();
  }

  /** The wrapped height at `width`. */
  rows(width: number): number {
    if (width !== this.width || this.measured !== widthGeneration()) {
      if (this.measured !== widthGeneration()) for (const b of this.blocks) if (b.measured !== widthGeneration()) this.remeasure(b);
      this.measured = widthGeneration();
      [this.width, this.before, this.total] = [width, [], 0];
      for (const b of this.blocks) {
        this.before.push(this.total);
        this.total += this.blockRows(b, width);
      }
    }
    return this.total;
  }

  /** Rows `top`… (`count` of them) at `width`, as Lines. */
  window(width: number, top: number, count: number): Line[] {
    const total = this.rows(width);
    const out: Line[] = [];
    let i = upperBound(this.before, top) - 1;
    if (i < 0) i = 0;
    for (let row = this.before[i] ?? 0; i < this.blocks.length && out.length < count && row < total; i++) {
      const b = this.blocks[i]!;
      const lines = this.lines(b);
      for (let l = 0; l < b.widths.length && out.length < count; l++) {
        const n = b.widest <= width ? 1 : b.wrapped!.rows[l]!;
        if (row + n <= top) {
          row += n;
          continue;
        }
        const from = Math.max(0, top - row);
        for (const text of lineWindow(lines[l] ?? "", width, n, from, from + count - out.length, b.widths[l]!))
          out.push([{ text, tone: b.tone, bold: b.bold }]);
        row += n;
      }
    }
    return out;
  }

  /**
   * The row (at `width`) where the first line holding `query` (any case) starts, after row `after`; null when none.
   * Blocks kept on disk are read back one by one, through the same bounded cache the window uses.
   */
  find(query: string, width: number, after: number): number | null {
    const q = query.toLowerCase();
    this.rows(width);
    let i = Math.max(0, upperBound(this.before, Math.max(0, after)) - 1);
    for (; i < this.blocks.length; i++) {
      const b = this.blocks[i]!;
      const lines = this.lines(b);
      let row = this.before[i]!;
      for (let l = 0; l < b.widths.length; l++) {
        const text = lines[l] ?? "";
        // Where in the line it is: the row of the wrapped line that holds its start.
        const at = row > after ? text.toLowerCase().indexOf(q) : -1;
        if (at >= 0) {
          const rows = b.widest <= width ? [text] : lineWindow(text, width, b.wrapped!.rows[l]!, 0, b.wrapped!.rows[l]!, b.widths[l]!);
          return (
            row +
            Math.max(
              0,
              rows.findIndex((r) => r.toLowerCase().includes(q)),
            )
          );
        }
        row += b.widest <= width ? 1 : b.wrapped!.rows[l]!;
      }
    }
    return null;
  }

  /** A block's rows at `width`: one a line when it is no wider, else counted from its text once per width. */
  private blockRows(b: Block, width: number): number {
    if (b.widest <= width) return b.widths.length;
    if (b.wrapped?.width !== width) {
      const lines = b.fresh !== undefined ? b.fresh.split("\n") : this.lines(b);
      const rows = new Uint32Array(b.widths.length);
      for (let l = 0; l < rows.length; l++) rows[l] = lineRows(lines[l] ?? "", width, b.widths[l]!);
      b.wrapped = { width, rows };
    }
    let n = 0;
    for (const r of b.wrapped.rows) n += r;
    return n;
  }

  /** A block's widths after the width method changed (the screen's renderer said how its terminal counts). */
  private remeasure(b: Block): void {
    Object.assign(b, measure(b.fresh !== undefined ? b.fresh.split("\n") : this.lines(b)), { measured: widthGeneration() });
    delete b.wrapped;
  }

  private lines(b: Block): string[] {
    if (b.text !== null) return b.text.split("\n");
    const hit = this.cache.get(b);
    if (hit) return hit.lines;
    const text = shown(b.load!());
    const size = text.length;
    // Bounded: what a few screens show, plus the one block being read however big it is.
    while (this.cache.size && this.cached + size > CACHE_CHARS) {
      const [k, v] = this.cache.entries().next().value!;
      this.cache.delete(k);
      this.cached -= v.size;
    }
    const lines = text.split("\n");
    this.cache.set(b, { lines, size });
    this.cached += size;
    return lines;
  }
}

const CACHE_CHARS = 4 << 20;

/** The first index whose value is greater than `x` (`xs` ascending). */
function upperBound(xs: number[], x: number): number {
  let [lo, hi] = [0, xs.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
