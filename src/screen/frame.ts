/**
 * The contract between a full-screen view model and the renderer that draws it. A model is pure (state and
 * events in, a Frame and Actions out: unit-tested without a terminal); the renderer knows nothing of loops,
 * it draws a Frame and names the keys it reads. The loop screen, the selection screen and the preview are
 * all models of this one kind, drawn by one renderer.
 */
import type { EndAnswer } from "../engine/view.ts";

/** Colour roles; the renderer maps them to its palette (and to nothing under NO_COLOR). */
export type Tone = "normal" | "dim" | "accent" | "good" | "bad" | "warn";

/** A run of text in one tone. Text is already inert (term/inert.ts): no control characters reach a renderer. */
export interface Span {
  text: string;
  tone?: Tone;
  bold?: boolean;
}
export type Line = Span[];

/** One row of the left-hand list (stories on the loop screen; changes and loops on the selection screen). */
export interface ListRow {
  /** One column wide: ✓ ▶ · ✗ ‼ … */
  glyph: string;
  tone: Tone;
  title: string;
  /** Right-hand detail (attempts, tokens, cost); may be dropped when narrow. */
  detail: string;
  selected: boolean;
}

export interface Frame {
  /** `split`: list left, tabs and body right; `full`: no list, the body takes the width; `compact`: one column, for terminals under 60×15. */
  layout: "split" | "full" | "compact";
  /** Top rows: what is shown and how it stands (the loop screen: worktree, change, status, iteration, elapsed, tokens, cost). */
  header: Line[];
  list: { title: string; rows: ListRow[]; gauge: { done: number; total: number } | null };
  tabs: { title: string; active: boolean }[];
  /** The visible window of the active tab, already wrapped to the body's width: `lines` are rows `top`… of `total`. */
  body: { lines: Line[]; top: number; total: number; following: boolean };
  /** The bottom row: key hints, or the last message from wt-loop ("Stopping…", a note saved). */
  footer: Line;
  /** Drawn over everything, centred: the key help, a question, the end dialog, a diff, a text input. */
  overlay: { title: string; lines: Line[] } | null;
}

/**
 * A key as the renderer names it: a printable character as itself ("q", "j", "?", "+", "R"), the others by
 * name: "up" "down" "left" "right" "pageup" "pagedown" "home" "end" "tab" "shift-tab" "enter" "escape"
 * "backspace" "ctrl-c", and the mouse wheel as "wheelup" / "wheeldown".
 */
export type Key = string;

/** What a key asks of the world outside the model; a model handles everything else (selection, tabs, scrolling) itself. */
export type Action =
  /** run: q or Ctrl-C — one press, counted by control/stop-presses.ts (q q q force-quits). */
  | { kind: "stop"; key: string }
  /** monitor: stop following, the loop goes on. */
  | { kind: "leave"; code: number }
  /** monitor: `s`, answered `y` — stop the loop being followed. */
  | { kind: "stop-loop" }
  /** `p`: pause after the current iteration, or resume. */
  | { kind: "pause" }
  | { kind: "resume" }
  /** `+` / `-`: the iteration limit by `delta`. */
  | { kind: "max"; delta: number }
  /** `n`: a note the next prompt carries. */
  | { kind: "note"; text: string }
  /** The end dialog's answer. */
  | { kind: "answer"; completion: EndAnswer }
  /** Files tab, Enter: show an attempt's diff (`file`, written when it ended; the model gets the text back through its own method, titled `title`). */
  | { kind: "diff"; title: string; file: string }
  /** End view or selection: leave the screen (`code` is the exit code). */
  | { kind: "quit"; code: number }
  /** Selection, Enter: preview a piece of work (`id`: a change's name or a tasks file's path), or attach to a worktree's loop. */
  | { kind: "preview"; id: string }
  | { kind: "attach"; worktree: string }
  /** Preview: `R` runs the loop here, `S` starts it in a new window; Esc goes back to the selection. */
  | { kind: "run"; id: string }
  | { kind: "start"; id: string }
  | { kind: "back" };

/** A full-screen view model: what the renderer calls. */
export interface ScreenModel {
  resize(cols: number, rows: number): void;
  /** What the key asks of the world, or null when the model handled it (or ignores it). */
  key(k: Key): Action | null;
  /** The frame to draw at `now` (ms since the epoch: clocks and countdowns). */
  frame(now: number): Frame;
  /**
   * The parts of the frame that change with time alone (a clock, a countdown, a message that expires) at `now`,
   * when nothing else can have changed since the last `frame`; null when the whole frame must be composed (what
   * it shows may have moved on without a word to the renderer: a log that grew, a file a tab shows). The renderer
   * asks it on its 1 s tick, only when no key, resize or redraw came since the last `frame`. Optional: a model
   * without it is composed whole on each tick.
   */
  clock?(now: number): Clock | null;
}

/** What `ScreenModel.clock` recomposes: the rest of the frame on screen stays as it is. */
export type Clock = Pick<Frame, "header" | "footer">;
