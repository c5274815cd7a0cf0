/**
 * What the selection screen and the preview share: their size, a line for the footer until the next
 * key, text over the screen that any key closes (q and Ctrl-C still quit), and the `?` overlay of
 * their keys.
 */
import type { Action, Frame, Key, Line, Tone } from "./frame.ts";
import { fit, span } from "./text.ts";

export abstract class TextScreen {
  protected cols = 80;
  protected rows = 24;
  protected overlay: Frame["overlay"] = null;
  protected message: Line | null = null;

  /** A line for the footer until the next key (what came of a start, a refused run). */
  say(text: string, tone: Tone = "normal"): void {
    this.message = [span(text, tone)];
  }

  /** Text over the screen until the next key (what `start` printed, why a run did not begin). */
  inform(title: string, text: string): void {
    this.overlay = {
      title,
      lines: text
        .trimEnd()
        .split("\n")
        .map((l) => [span(l)]),
    };
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
  }

  /**
   * The first thing a key does: the footer's line goes, and an open overlay takes the key and closes
   * (q and Ctrl-C quit). Undefined when the key is the screen's own to act on.
   */
  protected overlayKey(k: Key): Action | null | undefined {
    this.message = null;
    if (!this.overlay) return undefined;
    this.overlay = null;
    return k === "q" || k === "ctrl-c" ? { kind: "quit", code: 0 } : null;
  }

  /** The `?` overlay: each key (padded to `width`) and what it does. */
  protected showKeys(keys: [string, string][], width: number): null {
    this.overlay = { title: "Keys", lines: keys.map(([k, what]) => [span(fit(k, width), "accent", true), span(what)]) };
    return null;
  }
}
