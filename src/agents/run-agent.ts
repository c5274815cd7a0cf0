/**
 * One agent run: spawn it in its own process group, keep its raw output untruncated in the
 * iteration's log files, and hand each normalized event to the engine as it arrives.
 */
import { HarnessError } from "../errors.ts";
import { RUN_TAG_VAR } from "../proc/contain.ts";
import { ConsumerError, start, type EndReason } from "../proc/spawn.ts";
import { findPromise, type AgentPromise } from "../loop/outcome.ts";
import type { AgentAdapter, AgentCall } from "./adapter.ts";
import type { DoneEvent, StreamEvent } from "./stream.ts";

export interface AgentRun {
  done: DoneEvent | null;
  /** The promise that ends the agent's final message (its Done's final text, else its last message). */
  promise: AgentPromise | null;
  exitCode: number;
  end: EndReason;
  durationMs: number;
}

export interface AgentRunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
  logPath: string;
  onEvent: (event: StreamEvent) => void;
  /** The loop run's tag (proc/contain.ts runTag): every process of the agent carries it and is ended with it. */
  runTag: string;
  /** The agent's pid, which is also its process group id (for `stop --force`). */
  onStart?: (pid: number) => void;
}

/**
 * Lines longer than this are followed by a full collection: one 10 MB message passes through a few
 * transient copies (the line, the parsed text, the logged event, the rendered text), and the engine
 * would otherwise let several such generations pile up before it collects (see README, Performance).
 */
const HUGE_LINE = 4 * 1024 * 1024;

export async function runAgent(adapter: AgentAdapter, call: AgentCall, opts: AgentRunOptions): Promise<AgentRun> {
  const t0 = performance.now();
  const parser = adapter.parser();
  const result: AgentRun = { done: null, promise: null, exitCode: -1, end: "exit", durationMs: 0 };
  let lastMessage = ""; // the final text when the agent ended without a Done
  const handle = (events: StreamEvent[]) => {
    for (const e of events) {
      if (e.type === "Message") lastMessage = e.text;
      if (e.type === "Done") result.done = e;
      opts.onEvent(e);
    }
  };
  try {
    // The agent writes its raw output straight into the iteration's log files; we read the stdout
    // log back as it grows. Memory stays flat however much, and however fast, the agent writes.
    const proc = start(adapter.argv(call), {
      cwd: opts.cwd,
      env: { ...(adapter.env ? adapter.env(opts.env) : opts.env), [RUN_TAG_VAR]: opts.runTag },
      contain: { tag: opts.runTag },
      input: adapter.promptInArgv ? undefined : call.prompt,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      stdoutFile: opts.logPath,
      stderrFile: opts.logPath.replace(/\.jsonl$/, ".stderr"),
      onStdout: (line) => {
        handle(parser.line(line));
        if (line.length > HUGE_LINE) Bun.gc(true);
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
    result.promise = findPromise(result.done?.final_text || lastMessage);
  } catch (err) {
    // A parser, the renderer or the event log failed: wt-loop's failure, not the agent's (whose
    // processes are all gone by now). Never a silent no_signal.
    if (err instanceof ConsumerError)
      throw new HarnessError(`Processing the agent's output failed: ${err.message}. The agent was stopped; its raw output is in ${opts.logPath}.`, {
        cause: err.error,
      });
    throw err;
  } finally {
    result.durationMs = performance.now() - t0;
  }
  return result;
}
