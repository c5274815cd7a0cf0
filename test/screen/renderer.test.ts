// The renderer draws any Frame (hand-made here, no loop needed) and names the keys, in opentui's headless test renderer.
import { afterEach, describe, expect, test } from "bun:test";
import { TextAttributes } from "@opentui/core";
import { createTestRenderer, type TestRendererSetup } from "@opentui/core/testing";
import type { Clock, Frame, Key, ScreenModel } from "../../src/screen/frame.ts";
import { bodySize, layoutFor } from "../../src/screen/geometry.ts";
import { attachScreen, type Screen } from "../../src/screen/renderer.ts";
import { waitFor } from "../helpers/wait.ts";

const frame = (over: Partial<Frame> = {}): Frame => ({
  layout: "split",
  header: [[{ text: "repo · add-login · running", tone: "accent" }, { text: "  iteration 3/10" }]],
  list: {
    title: "Stories",
    rows: [
      { glyph: "✓", tone: "good", title: "1 Parse config", detail: "1×", selected: false },
      { glyph: "▶", tone: "accent", title: "2 Loop screen", detail: "2×", selected: true },
      { glyph: "·", tone: "dim", title: "3 Cost meter", detail: "", selected: false },
    ],
    gauge: { done: 1, total: 3 },
  },
  tabs: [
    { title: "Agent", active: true },
    { title: "Tasks", active: false },
  ],
  body: { lines: [[{ text: "the agent said hello" }], [{ text: "and then some" }]], top: 0, total: 2, following: true },
  footer: [{ text: "↑/↓ story · Tab tab · q stop", tone: "dim" }],
  overlay: null,
  ...over,
});

class Model implements ScreenModel {
  keys: Key[] = [];
  size = { cols: 0, rows: 0 };
  constructor(public f: Frame) {}
  resize(cols: number, rows: number) {
    this.size = { cols, rows };
  }
  key(k: Key) {
    this.keys.push(k);
    return null;
  }
  frames = 0;
  frame() {
    this.frames++;
    return this.f;
  }
}

/** A model with a clock: its header's first row is `clockText` (the frame's own first row until set), its footer the frame's. */
class ClockModel extends Model {
  clockText: string | null = null;
  clocks = 0;
  whole = false;
  override frame() {
    const f = super.frame();
    return this.clockText ? { ...f, header: [[{ text: this.clockText }], ...f.header.slice(1)] } : f;
  }
  clock(): Clock | null {
    this.clocks++;
    if (this.whole) return null;
    const header = this.clockText ? [[{ text: this.clockText }], ...this.f.header.slice(1)] : this.f.header;
    return { header, footer: this.f.footer };
  }
}

let t: TestRendererSetup | null = null;
let screen: Screen | null = null;
afterEach(async () => {
  await screen?.close(false);
  await t?.dispose();
  t = screen = null;
});

async function draw(f: Frame, cols = 80, rows = 20, env = {}) {
  t = await createTestRenderer({ width: cols, height: rows, exitOnCtrlC: false, useMouse: true });
  const m = new Model(f);
  screen = attachScreen(t.renderer, m, env);
  screen.onKey((k) => m.key(k));
  const text = await t.waitForFrame((s) => s.includes(f.footer[0]?.text ?? ""));
  return { m, text };
}

describe("renderer", () => {
  test("split: header, the list with its selection and gauge, the tabs, the body, the footer", async () => {
    const { text, m } = await draw(frame());
    expect(m.size).toEqual({ cols: 80, rows: 20 });
    const rows = text.split("\n");
    expect(rows[0]).toContain("repo · add-login · running  iteration 3/10");
    expect(text).toContain("Stories");
    expect(text).toContain("›▶ 2 Loop screen");
    expect(text).toContain(" ✓ 1 Parse config");
    expect(text).toMatch(/█+░+ 1\/3/);
    expect(rows[1]).toContain("Agent");
    expect(rows[1]).toContain("Tasks");
    expect(rows[2]).toContain("the agent said hello");
    expect(rows[19]).toContain("↑/↓ story · Tab tab · q stop");
  });

  test("the body shows a scrollbar mark only when the text is longer than the window, at its place", async () => {
    const { rows } = bodySize("split", 80, 20, 1);
    const lines = Array.from({ length: rows }, (_, i) => [{ text: `line ${i}` }]);
    const { text } = await draw(frame({ body: { lines, top: 0, total: rows * 4, following: false } }));
    const bodyRows = text.split("\n").slice(2, 2 + rows);
    expect(bodyRows[0]!.trimEnd().endsWith("█")).toBe(true);
    expect(bodyRows[rows - 1]!.trimEnd().endsWith("│")).toBe(true);
  });

  test("compact under 60×15: the selected story on one line, then tabs and body; nothing crashes at 40×10", async () => {
    expect(layoutFor(40, 10)).toBe("compact");
    const { text } = await draw(frame({ layout: "compact" }), 40, 10);
    const rows = text.split("\n");
    expect(rows[1]).toContain("▶ 2 Loop screen");
    expect(rows[1]).toContain("1/3");
    expect(rows[2]).toContain("Agent");
    expect(rows[3]).toContain("the agent said hello");
  });

  test("an overlay is drawn centred over everything", async () => {
    const { text } = await draw(frame({ overlay: { title: "Keys", lines: [[{ text: "q  stop the loop" }]] } }));
    const row = text.split("\n").find((r) => r.includes("q  stop the loop"))!;
    expect(row.indexOf("q  stop")).toBeGreaterThan(20);
    expect(text).toContain("Keys");
  });

  test("a box's title of emoji and CJK is cut by columns between whole characters; the border keeps its row", async () => {
    // The cut falls inside the family emoji (one cluster of five code points), after CJK that takes two columns each.
    const title = `家族の記録 ${"x".repeat(40)}👨‍👩‍👧 and more`;
    const { text } = await draw(frame({ overlay: { title, lines: [[{ text: "the box is about this wide" }]] } }), 60, 20);
    const row = text.split("\n").find((r) => r.includes("家族"))!;
    expect(row).not.toContain("\uFFFD");
    // Cut by columns, the emoji fits whole (cut by code points it was torn: 👨‍👩‍ and the border after it).
    expect(row).toContain(`家族の記録 ${"x".repeat(40)}👨‍👩‍👧`);
    // The right corner stays where the box ends: no wide character pushed it.
    const body = text.split("\n").find((r) => r.includes("the box is about this wide"))!;
    expect(Bun.stringWidth(row.slice(0, row.lastIndexOf("╮") + 1))).toBe(Bun.stringWidth(body.slice(0, body.lastIndexOf("│") + 1)));
  });

  test("keys are named as frame.ts says: arrows, Tab and Shift-Tab, Enter, Escape, printable characters, Ctrl-C, the wheel", async () => {
    const { m } = await draw(frame());
    t!.mockInput.pressArrow("down");
    t!.mockInput.pressTab();
    t!.mockInput.pressTab({ shift: true });
    t!.mockInput.pressEnter();
    t!.mockInput.pressKey("q");
    t!.mockInput.pressKey("R");
    t!.mockInput.pressKey("c", { ctrl: true });
    await t!.mockMouse.scroll(40, 5, "down");
    await t!.waitFor(() => m.keys.includes("wheeldown"));
    t!.mockInput.pressKey("ESCAPE");
    // A lone ESC is told apart from the start of a sequence by a short wait.
    for (let i = 0; i < 100 && !m.keys.includes("escape"); i++) await Bun.sleep(20);
    expect(m.keys).toEqual(["down", "tab", "shift-tab", "enter", "q", "R", "ctrl-c", "wheeldown", "escape"]);
  });

  test("tones are colours, and under NO_COLOR one colour; the selection is then shown inverted", async () => {
    const tones = (spans: { text: string; fg: { toInts(): number[] }; attributes: number }[]) =>
      new Set(spans.filter((x) => x.text.trim()).map((x) => x.fg.toInts().join(",")));
    await draw(frame());
    const coloured = t!.captureSpans().lines.flatMap((l) => l.spans);
    expect(tones(coloured).size).toBeGreaterThan(2);
    await screen!.close(false);
    await t!.dispose();
    await draw(frame(), 80, 20, { NO_COLOR: "1" });
    const plain = t!.captureSpans().lines.flatMap((l) => l.spans);
    expect(tones(plain).size).toBe(1);
    const selected = plain.find((x) => x.text.includes("Loop screen"))!;
    expect(selected.attributes & TextAttributes.INVERSE).toBeTruthy();
  });

  test("a redraw whose frame has the text already on screen draws nothing (the idle clock tick); a changed frame is drawn", async () => {
    const { m } = await draw(frame());
    const view = t!.renderer.root.getChildren()[0]!;
    let renders = 0;
    const request = view.requestRender.bind(view);
    view.requestRender = () => {
      renders++;
      request();
    };
    m.f = frame({ footer: [{ text: "a first footer" }] });
    screen!.redraw();
    await waitFor("the changed frame drawn", () => renders > 0, 10_000, { every: 5 });
    const drawn = renders;
    const composed = m.frames;
    screen!.redraw();
    await waitFor("the frame composed, compared and found unchanged", () => m.frames > composed, 10_000, { every: 5 });
    expect(renders).toBe(drawn);
    m.f = frame({ footer: [{ text: "a new footer" }] });
    screen!.redraw();
    await waitFor("the changed frame drawn", () => renders > drawn, 10_000, { every: 5 });
    expect(renders).toBe(drawn + 1);
    await t!.waitForFrame((text) => text.includes("a new footer"));
  });

  test("a tick with nothing else since asks the model only for its clock, and draws; a redraw, or a model that says it moved, composes the whole frame", async () => {
    const m = new ClockModel(frame({ header: [[{ text: "elapsed 59s" }]] }));
    t = await createTestRenderer({ width: 80, height: 20, exitOnCtrlC: false });
    screen = attachScreen(t.renderer, m, {});
    await t.waitForFrame((s) => s.includes("elapsed 59s"));
    const view = t.renderer.root.getChildren()[0]!;
    let renders = 0;
    const request = view.requestRender.bind(view);
    view.requestRender = () => {
      renders++;
      request();
    };
    const composed = m.frames;
    // The clock moves: the tick draws it, asking the model for its clock alone.
    m.clockText = "elapsed 1m 00s";
    await waitFor("the tick's frame drawn", () => renders > 0, 10_000, { every: 20 });
    expect(m.clocks).toBeGreaterThan(0);
    expect(m.frames).toBe(composed);
    // A redraw asked from outside (an event, the state) composes the whole frame.
    screen!.redraw();
    await waitFor("the whole frame composed", () => m.frames > composed, 10_000, { every: 20 });
    // A model that says the whole frame may have moved (null) is composed on the tick.
    const before = m.frames;
    m.whole = true;
    await waitFor("the whole frame composed on a tick", () => m.frames > before, 10_000, { every: 20 });
  });

  test("a tick's frame is the whole frame: its header and footer drawn over the rest as last drawn, which a changed body or a header of another height draws again", async () => {
    const m = new ClockModel(frame({ header: [[{ text: "elapsed 59s" }]] }));
    t = await createTestRenderer({ width: 80, height: 20, exitOnCtrlC: false });
    screen = attachScreen(t.renderer, m, {});
    const shows = async (what: string, ok: (s: string) => boolean) => {
      await waitFor(what, () => ok(t!.captureCharFrame()), 10_000, { every: 20 });
      return t!.captureCharFrame().split("\n");
    };
    const first = await shows("the first frame", (s) => s.includes("elapsed 59s"));
    // The clock moves: every row but the header's is what it was.
    m.clockText = "elapsed 1m 00s";
    const ticked = await shows("the tick's frame", (s) => s.includes("elapsed 1m 00s"));
    expect(ticked.slice(1)).toEqual(first.slice(1));
    // The body changes (an event: a redraw): the rest is drawn again, under the clock.
    m.f = frame({ body: { lines: [[{ text: "a new line" }]], top: 0, total: 1, following: true } });
    screen!.redraw();
    const moved = await shows("the new body", (s) => s.includes("a new line"));
    expect(moved.join("\n")).not.toContain("the agent said hello");
    expect(moved[0]).toContain("elapsed 1m 00s");
    // The clock's header gains a row: the list, the tabs and the body move down one, as a whole frame draws them.
    m.f = frame({ header: [[{ text: "elapsed" }], [{ text: "a second header row" }]], body: m.f.body });
    m.clockText = "elapsed 1m 01s";
    const taller = await shows("the taller header's tick", (s) => s.includes("a second header row"));
    expect(taller[2]).toContain("Agent");
    m.whole = true;
    m.f = frame({ header: [[{ text: "elapsed" }], [{ text: "a second header row, whole" }]], body: m.f.body });
    const whole = await shows("the whole frame", (s) => s.includes("a second header row, whole"));
    expect(whole.slice(2)).toEqual(taller.slice(2));
  });

  test("a resize tells the model the new size and re-lays out", async () => {
    const { m } = await draw(frame());
    t!.resize(100, 30);
    await t!.waitFor(() => m.size.cols === 100);
    const text = await t!.waitForFrame((s) => s.split("\n").length >= 30 && s.split("\n")[29]!.includes("q stop"));
    expect(text.split("\n")[0]).toContain("repo");
  });
});
