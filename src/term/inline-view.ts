/**
 * The line-stream view of a loop (`run` and `monitor` on any output): every event rendered as
 * lines, the activity line on a terminal, the title by OSC, messages on stderr, the completion
 * question as a prompt, and `q` / Ctrl-C read from the terminal in raw mode. It is the one owner
 * of stdin while a loop runs here.
 */
import type { LoopEvent } from "../record/events.ts";
import { END_HINTS, type EndAnswer, type KeyIntent, type View } from "../engine/view.ts";
import type { Completion, FinalStatus } from "../state/schema.ts";
import { activityLine, type Activity, type Out } from "./activity.ts";
import { forTerminal } from "./inert.ts";
import { listenKeys } from "./keys.ts";
import { promptLetGo, terminalGone } from "./hangup.ts";
import { terminalNotice } from "./notify.ts";
import { renderEvent, useColor } from "./render.ts";
import { setTitle } from "./title.ts";

export interface InlineViewOptions {
  out?: Out;
  /** Where `say` and `warn` write: stderr (run: a piped stdout keeps only the loop's lines) or with the lines. */
  messages?: "stderr" | "out";
  stdin?: NodeJS.ReadStream;
  env?: Record<string, string | undefined>;
  /** Only this story's messages (monitor --story). */
  story?: string;
}

export class InlineView implements View {
  private readonly activity: Activity;
  private readonly color: boolean;
  private readonly messages: Out;
  private readonly stdin: NodeJS.ReadStream;
  private readonly env: Record<string, string | undefined>;
  private listening: { dispose(): void } | null = null;

  constructor(private readonly o: InlineViewOptions = {}) {
    this.activity = activityLine(o.out ?? process.stdout);
    this.color = useColor(this.activity.out);
    this.messages = o.messages === "out" ? this.activity.out : process.stderr;
    this.stdin = o.stdin ?? process.stdin;
    this.env = o.env ?? process.env;
  }

  event(e: LoopEvent): void {
    this.activity.event(e);
    const lines = renderEvent(e, { color: this.color, story: this.o.story });
    if (lines.length) this.activity.out.write(forTerminal(lines.join("\n")) + "\n");
  }

  title(title: string): void {
    setTitle(title, this.activity.out, this.env);
  }

  say(message: string): void {
    this.messages.write(`\n${forTerminal(message)}\n`);
  }

  warn(message: string): void {
    this.messages.write(`warning: ${forTerminal(message)}\n`);
  }

  notice(title: string, body: string): void {
    if (!this.activity.out.isTTY) return;
    try {
      this.activity.out.write(terminalNotice(title, body, Boolean(this.env.TMUX)));
    } catch {
      // the terminal went away: the notice's other channels still try
    }
  }

  get canAsk(): boolean {
    return Boolean(this.stdin.isTTY);
  }

  keys(on: (intent: KeyIntent) => void): void {
    this.listening?.dispose();
    this.listening = listenKeys((key) => on({ kind: "stop", key }), this.stdin);
  }

  async ask(status: FinalStatus, signal: AbortSignal, offerPr = false): Promise<EndAnswer> {
    this.listening?.dispose(); // the prompt reads the keys now
    this.listening = null;
    // Loaded only when asked: consola costs ~9 ms of start-up that no other path needs.
    const { consola } = await import("consola");
    // consola's prompt cannot be cancelled: when the question is answered elsewhere (`wt-loop stop`, a
    // signal, nobody attached), let go of the terminal so the pending read neither keeps the process
    // alive nor leaves raw mode.
    const letGo = () => {
      promptLetGo();
      const gone = terminalGone();
      try {
        if (this.stdin.isTTY) this.stdin.setRawMode(false);
        const why = typeof signal.reason === "string" ? signal.reason : "Answered from another terminal (`wt-loop stop`).";
        if (!gone) this.activity.out.write(`\n${forTerminal(why)}\n`);
      } catch {
        // the terminal went away meanwhile
      }
      this.stdin.destroy();
    };
    // Answered while consola loaded: no prompt at all.
    if (signal.aborted) {
      letGo();
      return new Promise<EndAnswer>(() => {});
    }
    signal.addEventListener("abort", letGo);
    const answer = await consola.prompt(`Loop ${status}. What should happen to the loop's branch?`, {
      type: "select",
      options: Object.entries(END_HINTS)
        .filter(([answer]) => offerPr || answer !== "pr")
        .map(([answer, hint]) => ({ label: answer, value: answer, hint })),
      initial: "keep",
      cancel: "default",
    });
    return answer === "cleanup" || answer === "pr" ? answer : "keep";
  }

  dispose(): void {
    this.listening?.dispose();
    this.listening = null;
    this.activity.dispose();
  }
}
