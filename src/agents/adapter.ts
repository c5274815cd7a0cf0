/**
 * An agent adapter knows one agent CLI: how to call it and how to read its output. It knows
 * nothing of git, the loop or the terminal (SPEC §7).
 */
import type { StreamEvent } from "./stream.ts";

export interface AgentCall {
  prompt: string;
  model: string | null;
  agentCmd: string | null;
}

export interface OutputParser {
  /** One line of the agent's stdout → zero or more events. Unknown or non-JSON lines give none. */
  line(line: string): StreamEvent[];
  /** The agent exited: events only the end can produce (a plain-text agent's Done). */
  end(exitCode: number): StreamEvent[];
}

export interface AgentAdapter {
  name: string;
  /** The full command line; the prompt is written to stdin unless `promptInArgv`. */
  argv(call: AgentCall): string[];
  promptInArgv?: boolean;
  /** Its output is plain text, not JSON lines (an over-long line is then kept in the log, shown by its head). */
  plainText?: boolean;
  /** Adjusts the agent's environment (for example removes CLAUDECODE). */
  env?(env: Record<string, string | undefined>): Record<string, string | undefined>;
  parser(): OutputParser;
}

export function parseJsonLine(line: string): unknown {
  const t = line.trim();
  if (!t.startsWith("{")) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}
