/**
 * Whether `run` and `monitor` draw the full screen, and opening it. Only on a terminal both ways
 * (stdout and stdin), a TERM that can draw, and without `--plain`; the library is imported only then,
 * so every other command (and every piped one) starts without it. When it cannot start (its native
 * library cannot be loaded from a `noexec` temp folder, an unsupported platform) the caller falls back
 * to the line stream after a one-line notice: the loop must never fail for want of a screen.
 */
import type { CliRenderer, CliRendererConfig } from "@opentui/core";
import { isatty } from "node:tty";
import { errorMessage } from "../errors.ts";
import { forTerminal } from "../term/inert.ts";
import { printError } from "../term/print.ts";
import { measureByCodePoint } from "../text/width.ts";

export interface ScreenWanted {
  plain?: boolean;
  env?: Record<string, string | undefined>;
  /** Whether stdin and stdout are terminals (tests pass them). */
  tty?: { stdin: boolean; stdout: boolean };
}

export function wantsScreen(o: ScreenWanted = {}): boolean {
  const env = o.env ?? process.env;
  const tty = o.tty ?? { stdin: isatty(0), stdout: isatty(1) };
  return !o.plain && tty.stdin && tty.stdout && Boolean(env.TERM) && env.TERM !== "dumb";
}

let library: Promise<typeof import("@opentui/core")> | null = null;

/**
 * Starts loading the library (its native part is a few tens of milliseconds to load) without waiting:
 * `run` calls it first thing, so the load overlaps the git calls of the loop's preparation. A failure
 * is reported by `openScreen`, which awaits the same load.
 */
export function preloadScreen(): void {
  library ??= import("@opentui/core");
  library.catch(() => {}); // awaited (and reported) by openScreen; never an unhandled rejection meanwhile
}

/**
 * Opens the full screen (alternate buffer, raw keys, mouse), or says why not and returns null. `attach`
 * puts the caller's view on the renderer before the terminal is set up: the library draws a frame as soon
 * as the terminal answers its set-up questions, and one drawn before a view was there is a blank screen (a
 * flash; the view's own frame then waits for the library's frame pacing).
 */
export async function openScreen(notice: (line: string) => void = printError, attach?: (renderer: CliRenderer) => void): Promise<CliRenderer | null> {
  try {
    preloadScreen();
    const { CliRenderer } = await library!;
    // The library writes each frame from a thread of its own and polls that thread from this one until the
    // frame is out: up to 64 turns of the event loop a frame, the most an idle screen's clock tick cost after
    // the frame itself (docs/performance.md). A frame here is what changed on one screen: written from this
    // thread, nothing polls. Read once, as the renderer is made; not left for the agent's environment.
    const before = process.env.OTUI_STDOUT_THREAD;
    process.env.OTUI_STDOUT_THREAD ??= "false";
    try {
      // What the library's createCliRenderer does, with `attach` between the renderer and the terminal's set-up.
      const renderer = new CliRenderer(process.stdin, process.stdout, process.stdout.columns || 80, process.stdout.rows || 24, options);
      try {
        attach?.(renderer);
        await renderer.setupTerminal();
        measureLike(renderer);
        return renderer;
      } catch (err) {
        renderer.destroy();
        await renderer.closed.catch(() => {});
        throw err;
      }
    } finally {
      if (before === undefined) delete process.env.OTUI_STDOUT_THREAD;
    }
  } catch (err) {
    notice(`The full screen could not start (${forTerminal(errorMessage(err).split("\n")[0] ?? "")}); showing the loop as lines instead. --plain skips this.`);
    return null;
  }
}

/**
 * The screen's text measured the way its renderer counts columns (text/width.ts): by code point when it detected a
 * terminal that lays text out so (tmux 3.x: a family emoji is six columns there, not two), else by grapheme cluster.
 * The terminal's answers may come after the set-up: measured again on each. Back to clusters once the screen is gone.
 */
function measureLike(renderer: CliRenderer): void {
  const follow = () => measureByCodePoint(!renderer.isDestroyed && renderer.widthMethod === "wcwidth");
  follow();
  renderer.on("capabilities", follow);
  renderer.once("destroy", () => measureByCodePoint(false));
}

const options = {
  exitOnCtrlC: false, // Ctrl-C is a stop press, counted like q
  // SIGINT and SIGTERM stop the loop (control/stop-presses.ts) and the screen stays until it has; on these the
  // library restores the terminal at once and says so through its `destroy` event.
  exitSignals: ["SIGHUP", "SIGQUIT", "SIGABRT", "SIGPIPE", "SIGBUS"],
  useMouse: true,
  useKittyKeyboard: null,
  openConsoleOnError: false,
  targetFps: 30,
  maxFps: 30,
} satisfies CliRendererConfig;
