/**
 * What shows a loop to a person. The runner and `monitor` talk only to a View, never to the
 * terminal: today's line stream is one implementation (term/inline-view.ts), a full-screen screen
 * can be another. The view owns the keyboard; the loop owns what a key means (control/stop-presses.ts counts the
 * presses that make a force-quit).
 */
import type { Completion, FinalStatus, State } from "../state/schema.ts";
import type { LoopEvent } from "../record/events.ts";
import type { LogRange, LogReader } from "../record/event-log.ts";

/** The end question's answer: `pr` keeps the loop's branch, then pushes it and opens its pull request (as `wt-loop pr`). */
export type EndAnswer = Completion | "pr";
/** How the end question words each answer, in the order offered (the line prompt and the screen's dialog). */
export const END_HINTS: Record<EndAnswer, string> = {
  keep: "stay on the loop's branch with its checkpoint commits",
  cleanup: "back to your branch, all the loop's work as uncommitted changes",
  pr: "keep it, push it and open its pull request (as `wt-loop pr`)",
};

/** What a key press asks of the loop: `stop` (q, Ctrl-C: counted by control/stop-presses.ts), `force-stop` (at once). */
export type KeyIntent = { kind: "stop" | "force-stop"; key: string };

export interface View {
  /** One loop event, live (run) or as logged (monitor). */
  event(e: LoopEvent): void;
  /**
   * run: the same event once appended to the log, with where its line is (null: not in the log) — `run`'s screen
   * builds its record from these, in memory, and reads an agent's message back by its range only while it shows it.
   */
  logged?(e: LoopEvent, at: LogRange | null, log?: LogReader): void;
  /**
   * run: the state the runner holds (record/store.ts), after each write and once at the start — the same
   * object, changed in place by the loop, so a view reads it from memory and never reads the file back.
   */
  state?(s: State): void;
  /** The window's title (progress, waiting, the ending). */
  title(title: string): void;
  /** A message from wt-loop itself: stopping, a force-quit, how a followed loop ended. */
  say(message: string): void;
  /** Something the user should know that does not stop the loop (a failed --notify command). */
  warn(message: string): void;
  /** Calls for attention (the loop ended, or waits for an answer): a terminal's bell and desktop notice. */
  notice(title: string, body: string): void;
  /** Whether someone can answer `ask` here; when not, the loop's branch is kept without asking. */
  readonly canAsk: boolean;
  /**
   * Keep or clean up the loop's branch (or, `offerPr`, keep it and open its pull request). The keys are the
   * question's from now on. When `signal` aborts (answered from another terminal by `wt-loop stop`), the
   * question lets go and the promise may stay pending.
   */
  ask(status: FinalStatus, signal: AbortSignal, offerPr?: boolean): Promise<EndAnswer>;
  /** Reports what the keys ask for until `ask` or `dispose`. */
  keys(on: (intent: KeyIntent) => void): void;
  /** Gives the terminal back as it was (keys, the status line). */
  dispose(): void;
}
