/**
 * The screen driver: draws a ScreenModel's Frame with @opentui/core, names the keys (frame.ts `Key`),
 * and redraws on a key, a resize, a loop event and a 1 s clock tick — coalesced to at most 30
 * frames a second, nothing at all between them, and nothing when the frame's text is what the
 * screen already shows (a tick in a minute the clock shows as unchanged, a key that changes nothing). A tick
 * with nothing else since recomposes only what time changes (the model's `clock`). It gives the terminal back (main buffer, cursor
 * shown, no raw mode, no mouse reporting) on `close`, on a hang-up and on an uncaught error; the
 * library's own `destroy` (a signal it watches) is reported through `onGone`.
 */
import { OptimizedBuffer, Renderable, type CliRenderer, type KeyEvent, type RenderContext } from "@opentui/core";
import type { Frame, Key, ScreenModel } from "./frame.ts";
import { CLEAR, drawClock, drawRest, type Paint } from "./draw.ts";
import { printError } from "../term/print.ts";

const FRAME_MS = 34; // ≤ 30 frames a second
const TICK_MS = 1000;

export interface Screen {
  readonly renderer: CliRenderer;
  /** Draw soon (coalesced with every other request in the same 1/30 s). */
  redraw(): void;
  /** Draw another model from now on (the end view, the selection screen). */
  show(model: ScreenModel): void;
  /** Each key the user presses, named. */
  onKey(fn: (k: Key) => void): void;
  /** The renderer was destroyed from outside (a signal it watches): the terminal is already restored. */
  onGone(fn: () => void): void;
  title(text: string): void;
  /** Stops drawing and restores the terminal (when `destroy` is true: for a screen that is not handed on). */
  close(destroy?: boolean): Promise<void>;
}

/** The key as frame.ts names it, or null for one the screen does not use. */
export function keyName(k: Pick<KeyEvent, "name" | "ctrl" | "meta" | "shift" | "sequence">): Key | null {
  if (k.ctrl) return k.name === "c" ? "ctrl-c" : null;
  if (k.meta) return null;
  switch (k.name) {
    case "up":
    case "down":
    case "left":
    case "right":
    case "pageup":
    case "pagedown":
    case "home":
    case "end":
    case "escape":
    case "backspace":
      return k.name;
    case "tab":
      return k.shift ? "shift-tab" : "tab";
    case "return":
    case "enter":
    case "linefeed":
      return "enter";
    case "space":
      return " ";
  }
  // A printable character as itself (Shift-r arrives as "R").
  return [...k.sequence].length === 1 && k.sequence >= " " ? k.sequence : null;
}

class FrameRenderable extends Renderable {
  /** The frame composed to be compared (attachScreen's `redraw`): drawn as it is, not composed again. */
  next: Frame | null = null;
  /**
   * Whether `next`'s list, tabs or body differ from what `rest` holds. False for a clock tick (only the header and
   * the footer moved): its frame is a copy of `rest` (one native copy) with those rows drawn over it, not every
   * cell of the screen drawn again from its text (idle CPU, docs/performance.md).
   */
  restChanged = true;
  /** The list, the tabs and the body as last drawn (draw.ts `drawRest`), the size of the screen. */
  private rest: OptimizedBuffer | null = null;
  constructor(
    ctx: RenderContext,
    private readonly source: () => { model: ScreenModel; paint: Paint },
  ) {
    super(ctx, { id: "wt-loop-frame", width: "100%", height: "100%", position: "absolute", left: 0, top: 0 });
  }
  protected override renderSelf(buffer: OptimizedBuffer): void {
    const { model, paint } = this.source();
    let frame = this.next;
    this.next = null;
    if (!frame) {
      frame = model.frame(Date.now()); // a render the library asked for itself: composed now
      this.restChanged = true;
    }
    let rest = this.rest;
    if (!rest || rest.width !== buffer.width || rest.height !== buffer.height) {
      rest?.destroy();
      rest = this.rest = OptimizedBuffer.create(buffer.width, buffer.height, this._ctx.widthMethod, { owner: this._ctx.nativeScene, id: "wt-loop-rest" });
      this.restChanged = true;
    }
    if (this.restChanged) {
      rest.clear(CLEAR);
      drawRest(rest, frame, paint);
      this.restChanged = false;
    }
    buffer.clear(CLEAR);
    buffer.drawFrameBuffer(0, 0, rest);
    drawClock(buffer, frame, paint);
  }
  protected override destroySelf(): void {
    this.rest?.destroy();
    this.rest = null;
    super.destroySelf();
  }
}

export function attachScreen(renderer: CliRenderer, first: ScreenModel, env: Record<string, string | undefined> = process.env): Screen {
  let model = first;
  const paint: Paint = { color: !env.NO_COLOR };
  const keyFns: ((k: Key) => void)[] = [];
  const goneFns: (() => void)[] = [];
  let closed = false;
  let pending: Timer | null = null;
  let last = 0;
  // Whether anything but time may have changed since the frame on screen was composed: a key, a resize, a new
  // model, a redraw asked from outside (an event, the state, a message). Without, the tick asks the model only
  // for what time changes (`clock`): on an idle screen that is all a second costs.
  let dirty = true;
  let drawn: Frame | null = null;
  // The text of the frame on screen, in two parts (what time changes, and the rest): a tick (or an event) that
  // would draw the same cells draws nothing.
  let shown = { clock: "", rest: "" };
  const view = new FrameRenderable(renderer, () => ({ model, paint }));
  renderer.root.add(view);

  const compose = () => {
    pending = null;
    if (closed) return;
    const now = Date.now();
    const clock = !dirty && drawn && model.clock ? model.clock(now) : null;
    dirty = false;
    let frame: Frame;
    if (clock && drawn) {
      const text = JSON.stringify(clock);
      if (text === shown.clock) return;
      // A header of another height moves the rest (geometry.ts): drawn again.
      if (clock.header.length !== drawn.header.length) view.restChanged = true;
      frame = { ...drawn, header: clock.header, footer: clock.footer };
      shown = { clock: text, rest: shown.rest };
    } else {
      // Composed here, once, to be compared: only a frame that changed is drawn, and it is drawn as
      // composed here (the render follows at once; a frame composed again for it cost as much again).
      frame = model.frame(now);
      const { header, footer, ...rest } = frame;
      const text = { clock: JSON.stringify({ header, footer }), rest: JSON.stringify(rest) };
      const before = drawn;
      drawn = frame;
      if (text.clock === shown.clock && text.rest === shown.rest) return;
      // Only the header or the footer moved (a state written, a message): the rest is copied, not drawn again.
      if (text.rest !== shown.rest || header.length !== before?.header.length) view.restChanged = true;
      shown = text;
    }
    drawn = frame;
    last = Date.now();
    view.next = frame;
    view.requestRender();
  };
  /** Composes soon (coalesced with every other request in the same 1/30 s). */
  const schedule = () => {
    if (closed || pending) return;
    pending = setTimeout(compose, Math.max(0, last + FRAME_MS - Date.now()));
  };
  const redraw = () => {
    dirty = true;
    schedule();
  };
  /** Drawn whatever the frame's text: a new size or a new model. */
  const redrawAll = () => {
    shown = { clock: "", rest: "" };
    redraw();
  };
  const press = (k: Key) => {
    for (const fn of keyFns) fn(k);
    redraw();
  };
  const onKey = (e: KeyEvent) => {
    const k = keyName(e);
    if (k) press(k);
  };
  const onResize = (cols: number, rows: number) => {
    model.resize(cols, rows);
    redrawAll();
  };
  view.onMouseScroll = (e) => {
    const d = e.scroll?.direction;
    if (d === "up" || d === "down") press(d === "up" ? "wheelup" : "wheeldown");
  };
  const onGone = () => {
    if (closed) return;
    stop();
    for (const fn of goneFns) fn();
  };
  // An error nobody caught: give the terminal back before it is printed (printed earlier, it went to the
  // alternate screen and was gone with it), then end as Bun would have.
  const onCrash = (err: unknown) => {
    stop();
    renderer.destroy();
    const end = () => {
      printError(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    };
    void Promise.race([renderer.closed, Bun.sleep(2000)]).then(end, end);
  };
  const tick = setInterval(schedule, TICK_MS);
  tick.unref?.();
  renderer.keyInput.on("keypress", onKey);
  renderer.on("resize", onResize);
  renderer.on("destroy", onGone);
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  model.resize(renderer.width, renderer.height);
  // The first frame composed now, not on a timer: the library's first render (at once, or as soon as the
  // terminal is set up) draws it as composed here, and nothing is composed twice for it.
  compose();

  function stop() {
    closed = true;
    if (pending) clearTimeout(pending);
    clearInterval(tick);
    renderer.keyInput.off("keypress", onKey);
    renderer.off("resize", onResize);
    renderer.off("destroy", onGone);
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
  }

  return {
    renderer,
    redraw,
    show(m) {
      model = m;
      model.resize(renderer.width, renderer.height);
      redrawAll();
    },
    onKey: (fn) => void keyFns.push(fn),
    onGone: (fn) => void goneFns.push(fn),
    title(text) {
      if (!closed) renderer.setTerminalTitle(text);
    },
    async close(destroy = true) {
      if (closed) return;
      stop();
      renderer.root.remove(view);
      view.destroy();
      if (destroy) {
        renderer.destroy();
        await renderer.closed;
      }
    },
  };
}
