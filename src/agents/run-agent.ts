/**
 * One agent run: spawn it in its own process group, keep its raw output untruncated in the
 * iteration's log files, and hand each normalized event to the engine as it arrives.
 */
import { HarnessError, thenSentence } from "../errors.ts";
import { createLog } from "../state/log-file.ts";
import { RUN_TAG_VAR } from "../proc/contain.ts";
import { ConsumerError, start, type EndReason, type Wrapper } from "../proc/spawn.ts";
import { promiseIn, type AgentPromise, type FinalTag } from "./promise.ts";
import { LONG_LINE, LongJsonLine, LongPlainLine } from "./long-line.ts";
import { endingOf, withSpills, type Spill } from "./spill.ts";
import type { AgentAdapter, AgentCall } from "./adapter.ts";
import type { DoneEvent, MessageEvent, StreamEvent, UnavailableEvent } from "./stream.ts";

export interface AgentRun {
  done: DoneEvent | null;
  /** The promise that ends the agent's final message (its Done's final text, else its last message). */
  promise: AgentPromise | null;
  /** The tag that ends that message (a promise, or a reviewer's verdict), before it is read as either. */
  ending: FinalTag | null;
  /** The adapter's verdict that the service was unavailable or refused the credentials; null for a normal run. */
  unavailable: UnavailableEvent | null;
  exitCode: number;
  end: EndReason;
  durationMs: number;
}

export interface AgentRunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** `--sandbox`: the agent runs inside it. */
  sandbox?: Wrapper | null;
  timeoutMs: number;
  signal?: AbortSignal;
  logPath: string;
  onEvent: (event: StreamEvent) => void;
  /** The loop run's tag (proc/contain.ts runTag): every process of the agent carries it and is ended with it. */
  runTag: string;
  /** The agent's pid, which is also its process group id (for `stop --force`). */
  onStart?: (pid: number) => void;
}

export async function runAgent(adapter: AgentAdapter, call: AgentCall, opts: AgentRunOptions): Promise<AgentRun> {
  const t0 = performance.now();
  const parser = adapter.parser();
  const result: AgentRun = { done: null, promise: null, ending: null, unavailable: null, exitCode: -1, end: "exit", durationMs: 0 };
  // Refused credentials end the run at once: the CLIs would retry them for seconds to minutes.
  const refused = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, refused.signal]) : refused.signal;
  let lastMessage: MessageEvent | null = null; // the final text when the agent ended without a Done
  // The spills of the last message and of the Done: their promises are read from the scan of the whole text.
  let messageSpills: Spill[] = [];
  let doneSpills: Spill[] = [];
  const handle = (events: StreamEvent[], spills: Spill[] = []) => {
    for (const e of events) {
      if (e.type === "Message") {
        lastMessage = e;
        messageSpills = spills;
      }
      if (e.type === "Done") {
        result.done = e;
        doneSpills = spills;
      }
      if (e.type === "Unavailable") {
        result.unavailable = e;
        if (e.kind === "auth") refused.abort();
      }
      opts.onEvent(e);
    }
  };
  const stderrLog = opts.logPath.replace(/\.jsonl$/, ".stderr");
  // Created (and emptied) here, so every attempt's log holds its own output only, and a folder that
  // is not writable is named as such — Bun.spawn would report it as a missing program.
  for (const file of [opts.logPath, stderrLog]) await createLog(file);
  try {
    // The agent writes its raw output straight into the iteration's log files; we read the stdout
    // log back as it grows. Memory stays flat however much, and however fast, the agent writes.
    const proc = start(adapter.argv(call), {
      cwd: opts.cwd,
      env: { ...(adapter.env ? adapter.env(opts.env) : opts.env), [RUN_TAG_VAR]: opts.runTag },
      contain: { tag: opts.runTag },
      sandbox: opts.sandbox ?? undefined,
      input: adapter.promptInArgv ? undefined : call.prompt,
      timeoutMs: opts.timeoutMs,
      signal,
      stdoutFile: opts.logPath,
      stderrFile: stderrLog,
      onStdout: (line) => handle(parser.line(line)),
      // A line of megabytes (one huge message) is scanned as it comes, never built as one string.
      longLines: {
        limit: LONG_LINE,
        sink: adapter.plainText
          ? new LongPlainLine(opts.logPath, (line) => handle(parser.line(line)))
          : new LongJsonLine(opts.logPath, (line, spills) => handle(withSpills(parser.line(line), spills), spills)),
      },
    });
    opts.onStart?.(proc.pid);
    const { code, reason } = await proc.done;
    result.exitCode = code;
    result.end = reason;
    if (reason === "exit") {
      try {
        handle(parser.end(code));
      } catch (err) {
        throw new ConsumerError(err);
      }
    }
    const done = result.done;
    if (done && (done.final_text || done.spilled)) result.ending = endingOf(done, doneSpills);
    else result.ending = lastMessage ? endingOf(lastMessage, messageSpills) : null;
    result.promise = promiseIn(result.ending);
  } catch (err) {
    // A parser, the renderer or the event log failed: wt-loop's failure, not the agent's (whose
    // processes are all gone by now). Never a silent no_signal.
    if (err instanceof ConsumerError)
      throw new HarnessError(
        thenSentence(`Processing the agent's output failed: ${err.message}`, `The agent was stopped; its raw output is in ${opts.logPath}.`),
        {
          cause: err.error,
        },
      );
    throw err;
  } finally {
    result.durationMs = performance.now() - t0;
  }
  return result;
}
