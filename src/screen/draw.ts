/**
 * Draws a Frame onto a cell buffer: header rows, the list pane (rows, gauge), the tabs, the body
 * window with its scrollbar mark, the footer, and a centred overlay. It knows nothing of loops; what
 * goes where comes from geometry.ts, which the models use too.
 */
import { RGBA, TextAttributes, type OptimizedBuffer } from "@opentui/core";
import type { Frame, Line, ListRow, Tone } from "./frame.ts";
import { geometry, type Box } from "./geometry.ts";
import { cells, clip, cut, drawn } from "../text/width.ts";

export const CLEAR = RGBA.fromValues(0, 0, 0, 0);
const PALETTE: Record<Tone, RGBA> = {
  normal: RGBA.fromHex("#d0d0d0"),
  dim: RGBA.fromHex("#808080"),
  accent: RGBA.fromHex("#5fafff"),
  good: RGBA.fromHex("#5fd75f"),
  bad: RGBA.fromHex("#ff5f5f"),
  warn: RGBA.fromHex("#ffd75f"),
};
const SELECTED = RGBA.fromHex("#3a3a3a");
const PLAIN = RGBA.fromHex("#d0d0d0");

export interface Paint {
  /** False under NO_COLOR: every tone is the one foreground; the selection is shown inverted. */
  color: boolean;
}

export function drawFrame(buf: OptimizedBuffer, f: Frame, p: Paint): void {
  buf.clear(CLEAR);
  drawRest(buf, f, p);
  drawClock(buf, f, p);
}

/**
 * What time alone does not change: the list, the tabs and the body, with the header's rows and the footer
 * left blank. The renderer keeps it in a buffer of its own, so a clock tick draws only the header and the
 * footer over a copy of it (drawClock).
 */
export function drawRest(buf: OptimizedBuffer, f: Frame, p: Paint): void {
  const g = geometry(f.layout, buf.width, buf.height, f.header.length);
  if (g.list && f.layout === "split") drawList(buf, f, g.list, p);
  if (g.list && f.layout === "compact") drawSummary(buf, f, g.list, p);
  if (g.tabs.height) drawTabs(buf, f, g.tabs, p);
  drawBody(buf, f, g.body, p);
}

/** The header's rows, the footer and the overlay over them all: what drawRest leaves out. */
export function drawClock(buf: OptimizedBuffer, f: Frame, p: Paint): void {
  const cols = buf.width;
  const rows = buf.height;
  const g = geometry(f.layout, cols, rows, f.header.length);
  f.header.slice(0, g.header.height).forEach((line, i) => drawLine(buf, line, 0, i, cols, p));
  drawLine(buf, f.footer, 0, g.footer.y, cols, p);
  if (f.overlay) drawOverlay(buf, f.overlay, cols, rows, p);
}

function fg(tone: Tone | undefined, p: Paint): RGBA {
  return p.color ? PALETTE[tone ?? "normal"] : PLAIN;
}

/** Draws a line of spans from (x, y), no wider than `max` cells; returns the cells used. */
function drawLine(buf: OptimizedBuffer, line: Line, x: number, y: number, max: number, p: Paint, bg = CLEAR, attrs = 0): number {
  let used = 0;
  for (const s of line) {
    const text = clip(s.text.replace(/[\n\t]/g, " "), max - used);
    if (!text) break;
    buf.drawText(drawn(text), x + used, y, fg(s.tone, p), bg, attrs | (s.bold ? TextAttributes.BOLD : 0));
    used += cells(text);
  }
  return used;
}

function drawList(buf: OptimizedBuffer, f: Frame, box: Box, p: Paint): void {
  if (box.height < 2 || box.width < 4) return;
  buf.drawBox({
    ...box,
    border: true,
    borderStyle: "single",
    borderColor: fg("dim", p),
    backgroundColor: CLEAR,
    // Cut by columns between whole characters (text/width.ts), with … so a cut title is not read as whole.
    title: ` ${cut(f.list.title, box.width - 6)} `,
    titleColor: fg("accent", p),
  });
  const inner = { x: box.x + 1, y: box.y + 1, width: box.width - 2, height: box.height - 2 };
  const gaugeRows = f.list.gauge && inner.height > 2 ? 1 : 0;
  const visible = inner.height - gaugeRows;
  // Keep the selected row in view: a long plan scrolls under it.
  const sel = Math.max(
    0,
    f.list.rows.findIndex((r) => r.selected),
  );
  const first = Math.max(0, Math.min(sel - visible + 1, f.list.rows.length - visible));
  f.list.rows.slice(first, first + visible).forEach((r, i) => drawRow(buf, r, inner.x, inner.y + i, inner.width, p));
  if (f.list.gauge) drawGauge(buf, f.list.gauge, inner.x, inner.y + inner.height - 1, inner.width, p);
}

function drawRow(buf: OptimizedBuffer, r: ListRow, x: number, y: number, width: number, p: Paint): void {
  const bg = r.selected && p.color ? SELECTED : CLEAR;
  const attrs = r.selected && !p.color ? TextAttributes.INVERSE : 0;
  if (r.selected) buf.fillRect(x, y, width, 1, bg);
  const detail = r.detail && cells(r.detail) + 8 < width ? r.detail : "";
  const titleMax = width - 2 - (detail ? cells(detail) + 1 : 0);
  buf.drawText(r.selected ? "›" : " ", x, y, fg("accent", p), bg, attrs);
  buf.drawText(clip(r.glyph, 1), x + 1, y, fg(r.tone, p), bg, attrs);
  const used = drawLine(buf, [{ text: ` ${r.title}`, bold: r.selected }], x + 2, y, titleMax, p, bg, attrs);
  if (detail) buf.drawText(detail, x + width - cells(detail), y, fg("dim", p), bg, attrs);
  else if (attrs && used < titleMax) buf.drawText(" ".repeat(titleMax - used), x + 2 + used, y, PLAIN, bg, attrs);
}

function drawGauge(buf: OptimizedBuffer, g: { done: number; total: number }, x: number, y: number, width: number, p: Paint): void {
  const label = ` ${g.done}/${g.total}`;
  const bar = Math.max(0, width - label.length);
  const filled = g.total > 0 ? Math.round((bar * Math.min(g.done, g.total)) / g.total) : 0;
  buf.drawText("█".repeat(filled), x, y, fg("good", p), CLEAR);
  buf.drawText("░".repeat(bar - filled), x + filled, y, fg("dim", p), CLEAR);
  buf.drawText(clip(label, width), x + bar, y, fg("normal", p), CLEAR);
}

/** Compact: the selected row and the gauge on one line. */
function drawSummary(buf: OptimizedBuffer, f: Frame, box: Box, p: Paint): void {
  if (!box.height) return;
  const r = f.list.rows.find((row) => row.selected) ?? f.list.rows[0];
  const gauge = f.list.gauge ? ` ${f.list.gauge.done}/${f.list.gauge.total}` : "";
  const used = r
    ? drawLine(
        buf,
        [
          { text: r.glyph, tone: r.tone },
          { text: ` ${r.title}`, bold: true },
        ],
        box.x,
        box.y,
        box.width - gauge.length,
        p,
      )
    : 0;
  if (gauge && used + gauge.length <= box.width) buf.drawText(gauge, box.x + box.width - gauge.length, box.y, fg("dim", p), CLEAR);
}

function drawTabs(buf: OptimizedBuffer, f: Frame, box: Box, p: Paint): void {
  // Each tab padded by a space, unless that leaves the last ones cut (80 columns, the Files tab naming its
  // attempt): then only the active one keeps its padding, and its title gives way (cut with …) where even
  // that is too wide (60 columns), so every tab is still named.
  const padded = f.tabs.reduce((n, t) => n + cells(t.title) + 3, -1) <= box.width;
  const others = f.tabs.reduce((n, t) => n + (t.active ? 0 : cells(t.title) + 1), 0);
  let x = box.x;
  for (const t of f.tabs) {
    const title = padded || !t.active ? t.title : cut(t.title, Math.max(box.width - others - 2, Math.min(cells(t.title), 6)));
    const label = padded || t.active ? ` ${title} ` : title;
    const room = box.x + box.width - x;
    if (room <= 0) break;
    const attrs = t.active ? TextAttributes.BOLD | (p.color ? TextAttributes.UNDERLINE : TextAttributes.INVERSE) : 0;
    buf.drawText(clip(label, room), x, box.y, fg(t.active ? "accent" : "dim", p), CLEAR, attrs);
    x += cells(label) + 1;
  }
}

function drawBody(buf: OptimizedBuffer, f: Frame, box: Box, p: Paint): void {
  if (box.height <= 0) return;
  f.body.lines.slice(0, box.height).forEach((line, i) => drawLine(buf, line, box.x, box.y + i, box.width, p));
  // The scrollbar mark: where the window stands in the whole text, only when there is more than fits.
  const { top, total } = f.body;
  if (total <= box.height) return;
  const span = Math.max(1, total - box.height);
  const at = Math.round((Math.min(top, span) / span) * (box.height - 1));
  for (let i = 0; i < box.height; i++) buf.drawText(i === at ? "█" : "│", box.x + box.width, box.y + i, fg(i === at ? "accent" : "dim", p), CLEAR);
}

function drawOverlay(buf: OptimizedBuffer, o: NonNullable<Frame["overlay"]>, cols: number, rows: number, p: Paint): void {
  const longest = Math.max(cells(o.title) + 4, ...o.lines.map((l) => l.reduce((n, s) => n + cells(s.text), 0)));
  const width = Math.min(cols, longest + 4);
  const height = Math.min(rows, o.lines.length + 2);
  const x = Math.floor((cols - width) / 2);
  const y = Math.floor((rows - height) / 2);
  const back = p.color ? RGBA.fromHex("#1c1c1c") : RGBA.fromValues(0, 0, 0, 1);
  buf.fillRect(x, y, width, height, back);
  buf.drawBox({
    x,
    y,
    width,
    height,
    border: true,
    borderStyle: "rounded",
    borderColor: fg("accent", p),
    backgroundColor: back,
    title: clip(` ${o.title.replace(/[\n\t]/g, " ")} `, width - 4), // cut by columns between whole characters (text/width.ts)
    titleColor: fg("accent", p),
  });
  o.lines.slice(0, height - 2).forEach((line, i) => drawLine(buf, line, x + 2, y + 1 + i, width - 4, p, back));
}
