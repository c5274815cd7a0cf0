/**
 * `run` on a terminal opens its screen while the loop is still being prepared, so the first frame does
 * not wait for the plan's git calls (issue 19: first frame ≤ 150 ms). The library starts loading at
 * once; the screen opens as soon as nothing more may be asked on the terminal (after the trust
 * question) and shows the loop as `starting` until the loop itself is drawn. What the preparation
 * says meanwhile (a warning, a note) is held and printed once the terminal is back, and a refusal
 * closes the screen first, so it prints as it always did.
 */
import type { CliRenderer } from "@opentui/core";
import { openScreen, preloadScreen, wantsScreen, type ScreenWanted } from "../screen/load.ts";
import type { Screen } from "../screen/renderer.ts";
import { print, warn } from "../term/print.ts";

type Held = { to: "out" | "warn"; text: string };

export class ScreenFirst {
  readonly wanted: boolean;
  private opening: Promise<{ renderer: CliRenderer; preparing: Screen } | null> | null = null;
  private held: Held[] = [];

  constructor(o: ScreenWanted & { dryRun?: boolean }) {
    this.wanted = o.dryRun !== true && wantsScreen(o);
    if (!this.wanted) return;
    preloadScreen();
    // The screen's own modules too, while the preparation waits on git (a failure is openScreen's to report).
    import("./on-screen.ts").catch(() => {});
  }

  /** Opens the screen (once), showing the loop as starting. Nothing may be asked on the terminal after this. */
  open(): void {
    if (!this.wanted || this.opening) return;
    this.opening = openScreen().then(async (renderer) => {
      if (!renderer) return null;
      const { showPreparing } = await import("./on-screen.ts");
      return { renderer, preparing: showPreparing(renderer) };
    });
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
