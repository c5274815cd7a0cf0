/**
 * An agent adapter knows one agent CLI: how to call it and how to read its output. It knows
 * nothing of git, the loop or the terminal (docs/agents.md).
 */
import { resetTimeIn } from "./reset-time.ts";
import type { StreamEvent, UnavailableEvent } from "./stream.ts";

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
  /** What `--sandbox` lets it reach (run/sandbox.ts); none: it writes only the worktree and has no network. */
  sandbox?: AgentSandbox;
}

export interface AgentSandbox {
  /** The folders and files it keeps what a session writes in (login, sessions, caches): writable inside. */
  state(env: Record<string, string | undefined>, home: string): string[];
  /**
   * Its configuration, read-only inside (made empty first when missing): what the user's next session,
   * outside the sandbox, would run or obey — settings and their hooks, MCP servers, memory files, commands.
   */
  config(env: Record<string, string | undefined>, home: string): string[];
  /** The variables it needs (its API key and base URL…), passed into the sandbox: names, or prefixes `NAME_*`. */
  env: string[];
  /** The base URL of its API, from its environment or the vendor's own: the one host it may reach. */
  api(env: Record<string, string | undefined>): string;
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

/**
 * How an adapter says a run met an unavailable service or refused credentials (docs/agents.md): the
 * engine sees only this, never an agent's own error format. `auth` names what the user must do.
 */
export const unavailable = (reason: string, resetAt: Date | null = null): UnavailableEvent => ({
  type: "Unavailable",
  kind: "unavailable",
  reason,
  reset_at: resetAt && Number.isFinite(resetAt.getTime()) ? resetAt.toISOString() : null,
});
export const authFailure = (reason: string): UnavailableEvent => ({ type: "Unavailable", kind: "auth", reason, reset_at: null });

/** Patterns an adapter reads an error text with (its agent's own wording), and what the user runs to log in. */
export interface ErrorForms {
  agent: string;
  auth: RegExp;
  unavailable: RegExp;
  /** The advice of an auth failure: the agent's login command, its key variable. */
  login: string;
}

/** An agent's error text → unavailable (reset time read from it), auth, or null (an ordinary error). */
export function classifyErrorText(text: string, f: ErrorForms, resetAt: Date | null = null): UnavailableEvent | null {
  const said = text.replace(/\s+/g, " ").trim().slice(0, 500);
  if (f.auth.test(text)) return authFailure(`${f.agent} could not authenticate (${said}). ${f.login}`);
  if (f.unavailable.test(text)) return unavailable(`${f.agent}: ${said}`, resetAt ?? resetTimeIn(text));
  return null;
}
