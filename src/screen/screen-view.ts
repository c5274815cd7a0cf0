/**
 * The full-screen View (engine/view.ts) of `run` and `monitor`: loop events, messages and the end
 * question go to the loop screen's model; the keys the model does not handle itself come back as
 * Actions, done here — a stop press (counted by control/stop-presses.ts), leaving, stopping a followed loop, a
 * diff, steering, quitting. The header's state: in `run`, the one the runner holds, handed over in memory
 * (`state`); in `monitor`, the file, re-read every second when it was written since.
 */
import type { LoopEvent } from "../record/events.ts";
import type { LogRange, LogReader } from "../record/event-log.ts";
import type { EndAnswer, KeyIntent, View } from "../engine/view.ts";
import type { Completion, FinalStatus, State } from "../state/schema.ts";
import { fileStamp } from "../proc/file-stamp.ts";
import { readState } from "../state/store.ts";
import { inertLine } from "../term/inert.ts";
import { setTitle } from "../term/title.ts";
import { reportHangUp } from "../term/hangup.ts";
import type { Action, ScreenModel } from "./frame.ts";
import type { Screen } from "./renderer.ts";
import { attemptDiff } from "./diff.ts";
import { steerAction } from "./steer-action.ts";

/** What the view feeds the loop screen's model (screen/loop-model.ts). */
export interface LoopScreenModel extends ScreenModel {
  event(e: LoopEvent): void;
  /** run: an event once logged, with its place in the log. */
  logged?(e: LoopEvent, at: LogRange | null, log?: LogReader): void;
  state(s: State): void;
  say(message: string): void;
  ask(status: FinalStatus, offerPr?: boolean): void;
  showText(title: string, text: string): void;
  /** The question was answered elsewhere: the dialog goes. */
  closeAsk(): void;
  /** The loop is over: the result view, whose Enter or Esc asks to quit with `code`. */
  ended(code: number, message?: string): void;
}

export interface ScreenViewOptions {
  mode: "run" | "monitor";
  statePath: string;
  worktree: string;
  env?: Record<string, string | undefined>;
  /** monitor: `q` — stop following. */
  onLeave?: (code: number) => void;
  /** monitor: `s`, `y` — stop the followed loop. */
  onStopLoop?: () => void;
  /** Each message said: the launcher prints the last ones once the screen is gone. */
  onSay?: (message: string) => void;
  /** Each loop event shown: the launcher prints the end box (Complete) once the screen is gone. */
  onEvent?: (e: LoopEvent) => void;
}

const STATE_MS = 1000;

export class ScreenView implements View {
  private intents: ((i: KeyIntent) => void) | null = null;
  private answer: ((c: EndAnswer) => void) | null = null;
  private quitWith: ((code: number | null) => void) | null = null;
  private gone = false;
  private stateAt: string | null = null;
  private readonly poll: Timer | null = null;
  private readonly env: Record<string, string | undefined>;

  constructor(
    private readonly screen: Screen,
    private readonly model: LoopScreenModel,
    private readonly o: ScreenViewOptions,
  ) {
    this.env = o.env ?? process.env;
    // For tests only (docs/loop-screen.md): WT_LOOP_TEST_SCREEN_THROW=<key> makes the model throw
    // when it next draws after that key, so a test proves the terminal is given back after an error
    // nobody caught. (An error in a key handler is caught by the library itself; drawing is not.)
    const crashKey = this.env.WT_LOOP_TEST_SCREEN_THROW;
    screen.onKey((k) => {
      if (crashKey && k === crashKey)
        this.model.frame = () => {
          throw new Error(`the screen's test switch: WT_LOOP_TEST_SCREEN_THROW=${crashKey} was pressed`);
        };
      const a = this.model.key(k);
      if (a) void this.act(a);
    });
    screen.onGone(() => {
      // The terminal went away (a hang-up): nothing more is drawn. A run stops as after `wt-loop
      // stop` (term/hangup.ts: its question answered keep); a follower just stops following.
      this.gone = true;
      if (this.poll) clearInterval(this.poll);
      if (o.mode === "run") reportHangUp("the screen was closed");
      else o.onLeave?.(128 + 1); // SIGHUP's code: nobody is left to read it
      this.quitWith?.(null);
    });
    if (o.mode === "monitor") {
      this.poll = setInterval(() => void this.reread(), STATE_MS);
      this.poll.unref?.();
      void this.reread();
    }
  }

  /** Whether the terminal is still there to draw on. */
  get alive(): boolean {
    return !this.gone;
  }

  event(e: LoopEvent): void {
    this.o.onEvent?.(e);
    this.model.event(e);
    this.screen.redraw();
  }

  /** run: the event as the runner's store appended it, with its line's place in the log: the screen's record is built from these. */
  logged(e: LoopEvent, at: LogRange | null, log?: LogReader): void {
    this.model.logged?.(e, at, log);
    this.screen.redraw();
  }

  /** run: the runner's state, from its store (the same object each time, as it is now). */
  state(s: State): void {
    if (this.gone) return;
    this.model.state(s);
    this.screen.redraw();
  }

  title(title: string): void {
    this.screen.title(inertLine(title));
    setTitle(title, { isTTY: false, write: () => true }, this.env); // the tmux window's name
  }

  say(message: string): void {
    this.o.onSay?.(message);
    this.model.say(message);
    this.screen.redraw();
  }

  warn(message: string): void {
    this.say(`warning: ${message}`);
  }

  notice(title: string, body: string): void {
    if (!this.gone) this.screen.renderer.triggerNotification(inertLine(body), inertLine(title));
  }

  get canAsk(): boolean {
    return !this.gone;
  }

  keys(on: (intent: KeyIntent) => void): void {
    this.intents = on;
  }

  ask(status: FinalStatus, signal: AbortSignal, offerPr = false): Promise<EndAnswer> {
    this.model.ask(status, offerPr);
    this.screen.redraw();
    signal.addEventListener("abort", () => {
      this.answer = null;
      this.model.closeAsk();
      // The runner says why (nobody attached); else it was `wt-loop stop`.
      if (!this.gone) this.say(typeof signal.reason === "string" ? signal.reason : "Answered from another terminal (`wt-loop stop`).");
    });
    return new Promise((resolve) => (this.answer = resolve));
  }

  /** Resolves with the code of the model's `quit` (Esc/Enter on the result view), or null when the terminal went away. */
  untilQuit(): Promise<number | null> {
    if (this.gone) return Promise.resolve(null);
    return new Promise((resolve) => (this.quitWith = resolve));
  }

  /**
   * The loop is over: its state is read one last time and no more — the worktree is free now, and a
   * loop started there next must not show up on this one's end. (run: the runner handed over its last.)
   */
  async lastState(): Promise<void> {
    if (!this.poll) return;
    clearInterval(this.poll);
    await this.reread();
  }

  dispose(): void {
    if (this.poll) clearInterval(this.poll);
    this.intents = null;
  }

  private async reread(): Promise<void> {
    // Read and checked only when written since: most seconds of a long agent run change nothing.
    // (A write is a rename onto the path: a new inode each time, even within one millisecond.)
    const at = fileStamp(this.o.statePath);
    if (at === this.stateAt) return;
    this.stateAt = at;
    const s = await readState(this.o.statePath).catch(() => null);
    if (s && !this.gone) {
      this.model.state(s);
      this.screen.redraw();
    }
  }

  private async act(a: Action): Promise<void> {
    switch (a.kind) {
      // After the end (the result view is waiting), q leaves the screen whatever the model calls it.
      case "stop":
        if (this.quitWith) return this.quitWith(null);
        return this.intents?.({ kind: "stop", key: a.key });
      case "leave":
        this.quitWith?.(null);
        return this.o.onLeave?.(a.code);
      case "stop-loop":
        return this.o.onStopLoop?.();
      case "answer": {
        const answer = this.answer;
        this.answer = null;
        return answer?.(a.completion);
      }
      case "diff":
        this.model.showText(a.title, attemptDiff(a.file));
        return this.screen.redraw();
      case "pause":
      case "resume":
      case "max":
      case "note":
        this.say(await steerAction(this.o.worktree, a));
        // The runner answers after it saved the state: monitor reads it now, not at the next poll (run holds it already).
        return this.poll ? this.reread() : this.screen.redraw();
      case "quit":
        return this.quitWith?.(a.code);
      default:
        return; // the selection's and the preview's actions: not the loop screen's
    }
  }
}
