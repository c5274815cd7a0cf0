/**
 * Where each part of a Frame goes on a terminal of a given size. The model needs the body's size to
 * wrap and window its text, the renderer needs every box to draw it: both ask here, so they agree.
 * Pure and free of the terminal library, so a model can use it without loading the renderer.
 */
import type { Frame } from "./frame.ts";

/** Under this size the screen is one column (`compact`). */
export const COMPACT_BELOW = { cols: 60, rows: 15 } as const;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Geometry {
  header: Box;
  /** The bordered list pane (split) or its one-row summary (compact); null in `full`. */
  list: Box | null;
  tabs: Box;
  /** The text window of the active tab; its right-most column beyond `width` holds the scrollbar mark. */
  body: Box;
  footer: Box;
}

/** The layout a screen of this size gets when the model would like a list (`split`) or not (`full`). */
export function layoutFor(cols: number, rows: number, wanted: "split" | "full" = "split"): Frame["layout"] {
  return cols < COMPACT_BELOW.cols || rows < COMPACT_BELOW.rows ? "compact" : wanted;
}

/** The list pane's width in `split`: a third of the screen, within bounds that keep titles readable. */
export const listWidth = (cols: number): number => Math.max(22, Math.min(40, Math.floor(cols / 3)));

export function geometry(layout: Frame["layout"], cols: number, rows: number, headerRows: number): Geometry {
  const w = Math.max(1, cols);
  const h = Math.max(1, rows);
  const head = Math.min(headerRows, Math.max(0, h - 2));
  const header = { x: 0, y: 0, width: w, height: head };
  const footer = { x: 0, y: h - 1, width: w, height: 1 };
  const top = head;
  const middle = Math.max(0, h - 1 - top); // rows between the header and the footer
  if (layout === "split") {
    const lw = Math.min(listWidth(w), w - 2);
    const list = { x: 0, y: top, width: lw, height: middle };
    const right = lw + 1;
    const tabs = { x: right, y: top, width: Math.max(0, w - right), height: Math.min(1, middle) };
    const body = { x: right, y: top + 1, width: Math.max(0, w - right - 1), height: Math.max(0, middle - 1) };
    return { header, list, tabs, body, footer };
  }
  if (layout === "full") {
    const tabs = { x: 0, y: top, width: w, height: Math.min(1, middle) };
    const body = { x: 0, y: top + 1, width: Math.max(0, w - 1), height: Math.max(0, middle - 1) };
    return { header, list: null, tabs, body, footer };
  }
  // compact: the selected row of the list on one line, then the tabs and the body, one column.
  const list = { x: 0, y: top, width: w, height: Math.min(1, middle) };
  const tabs = { x: 0, y: top + 1, width: w, height: middle >= 2 ? 1 : 0 };
  const body = { x: 0, y: top + 2, width: Math.max(0, w - 1), height: Math.max(0, middle - 2) };
  return { header, list, tabs, body, footer };
}

/** The size of the body's text window: what a model wraps and windows its active tab to. */
export function bodySize(layout: Frame["layout"], cols: number, rows: number, headerRows: number): { cols: number; rows: number } {
  const b = geometry(layout, cols, rows, headerRows).body;
  return { cols: b.width, rows: b.height };
}
