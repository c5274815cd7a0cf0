/**
 * `run` on a terminal opens its screen while the loop is still being prepared, so the first frame does
 * not wait for the plan's git calls (issue 19: first frame ≤ 150 ms). The library starts loading at
 * once; the screen opens as soon as nothing more may be asked on the terminal (after the trust
 * question) and shows the loop as `starting` until the loop itself is drawn, with the plan's stories
 * as soon as the plan is read. The screen needs only the library and the screen's model: the engine
 * is loaded by the caller after `open` (issue 35). What the preparation says meanwhile (a warning, a
 * note) is held and printed once the terminal is back, and a refusal closes the screen first, so it
 * prints as it always did.
 */
import type { CliRenderer } from "@opentui/core";
import type { LoopEvent } from "../record/events.ts";
import { openScreen, preloadScreen, wantsScreen, type ScreenWanted } from "../screen/load.ts";
import type { LoopModel } from "../screen/loop-model.ts";
import type { Screen } from "../screen/renderer.ts";
import { print, warn } from "../term/print.ts";

type Held = { to: "out" | "warn"; text: string };

export class ScreenFirst {
  readonly wanted: boolean;
  private opening: Promise<{ renderer: CliRenderer; preparing: Screen; model: LoopModel; drawn: Promise<void> } | null> | null = null;
  private held: Held[] = [];
  /** The plan as read (LoopStarted), once it is: the starting screen lists it, and so does the loop's until the loop announces it. */
  planned: LoopEvent | null = null;

  constructor(o: ScreenWanted & { dryRun?: boolean }) {
    this.wanted = o.dryRun !== true && wantsScreen(o);
    if (!this.wanted) return;
    preloadScreen();
    // The starting screen's own modules too, while the preparation waits on git (a failure is openScreen's to report).
    screenModules().catch(() => {});
  }

  /** Opens the screen (once), showing the loop as starting. Nothing may be asked on the terminal after this. */
  open(): void {
    if (!this.wanted || this.opening) return;
    this.opening = screenModules().then(async ([{ LoopModel }, { attachScreen }]) => {
      const attached: { screen?: { preparing: Screen; model: LoopModel; drawn: Promise<void> } } = {};
      // Attached before the terminal is set up: the library's first frame is the starting screen (load.ts).
      const renderer = await openScreen(undefined, (r) => {
        // The loop before it is written: status `starting`, the plan's stories once they are read.
        const model = new LoopModel({ mode: "run" });
        model.say("Preparing the loop…", "dim");
        if (this.planned) model.plan(this.planned);
        // Its first frame: the preparation's own work waits for it (drawn). At most a second, for a terminal that is slow to draw.
        const drawn = new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(late);
            r.off("frame", done);
            resolve();
          };
          const late = setTimeout(done, FIRST_FRAME_WAIT_MS);
          r.on("frame", done);
        });
        attached.screen = { preparing: attachScreen(r, model), model, drawn };
      });
      return renderer && attached.screen ? { renderer, ...attached.screen } : null;
    });
  }

  /**
   * Once the starting screen's first frame is drawn (at once when no screen is opening): the
   * preparation loads and runs its heavier part after it, so the frame does not wait for that work
   * (one thread runs both).
   */
  async drawn(): Promise<void> {
    const opened = await this.opening?.catch(() => null);
    await opened?.drawn;
  }

  /** The plan is read: its stories are listed at once, before the first checkpoint and the agent. */
  plan(e: LoopEvent): void {
    this.planned = e;
    void this.opening?.then(
      (opened) => {
        if (!opened) return;
        opened.model.plan(e);
        opened.preparing.redraw();
      },
      () => {},
    ); // a screen that failed to open is take()'s and close()'s to report
  }

  readonly print = (text: string): void => this.hold({ to: "out", text });
  readonly warn = (message: string): void => this.hold({ to: "warn", text: message });

  /** The screen to run the loop on (the starting view taken down), or null for the line stream. */
  async take(): Promise<CliRenderer | null> {
    const opened = await this.opening;
    this.opening = null;
    if (!opened) {
      this.flush(); // the screen never opened: nothing is in the way of what was held
      return null;
    }
    await opened.preparing.close(false);
    return opened.renderer;
  }

  /** The preparation ended without a loop (a refusal, nothing to do): the terminal back, then what was held. */
  async close(): Promise<void> {
    const opened = await this.opening?.catch(() => null);
    this.opening = null;
    if (opened) await opened.preparing.close(true);
    this.flush();
  }

  /** Prints what was held while the screen was up; call once the terminal is back. */
  flush(): void {
    for (const h of this.held.splice(0)) (h.to === "out" ? print : warn)(h.text);
  }

  private hold(h: Held): void {
    if (this.opening) this.held.push(h);
    else (h.to === "out" ? print : warn)(h.text);
  }
}

const FIRST_FRAME_WAIT_MS = 1000;

const screenModules = () => Promise.all([import("../screen/loop-model.ts"), import("../screen/renderer.ts")]);
