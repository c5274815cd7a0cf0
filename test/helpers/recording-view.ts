/** A View that records what the runner shows and asks, and lets a test press keys: a real View, not a mock. */
import type { LoopEvent } from "../../src/record/events.ts";
import type { KeyIntent, View } from "../../src/engine/view.ts";
import type { Completion, FinalStatus } from "../../src/state/schema.ts";

export class RecordingView implements View {
  events: LoopEvent[] = [];
  titles: string[] = [];
  said: string[] = [];
  warned: string[] = [];
  notices: [string, string][] = [];
  asked: { status: FinalStatus; signal: AbortSignal }[] = [];
  disposed = false;
  private onKey: ((intent: KeyIntent) => void) | null = null;

  constructor(
    readonly canAsk = false,
    /** Answers the question; by default it never answers (someone away from the keyboard). */
    private answer: (status: FinalStatus, signal: AbortSignal) => Promise<Completion> = () => new Promise(() => {}),
    /** Called after each event is recorded: a test's way to act at a moment of the loop. */
    private onEvent: (e: LoopEvent, view: RecordingView) => void = () => {},
  ) {}

  /** True while the runner listens to the keys (from `keys` until `ask`). */
  get listening(): boolean {
    return this.onKey !== null;
  }

  press(intent: KeyIntent): void {
    this.onKey?.(intent);
  }

  event(e: LoopEvent): void {
    this.events.push(e);
    this.onEvent(e, this);
  }
  title(title: string): void {
    this.titles.push(title);
  }
  say(message: string): void {
    this.said.push(message);
  }
  warn(message: string): void {
    this.warned.push(message);
  }
  notice(title: string, body: string): void {
    this.notices.push([title, body]);
  }
  keys(on: (intent: KeyIntent) => void): void {
    this.onKey = on;
  }
  ask(status: FinalStatus, signal: AbortSignal): Promise<Completion> {
    this.onKey = null;
    this.asked.push({ status, signal });
    return this.answer(status, signal);
  }
  dispose(): void {
    this.onKey = null;
    this.disposed = true;
  }
}
