/** The agent adapters by name, and the check that the chosen agent can be run at all. */
import { UserError } from "../errors.ts";
import { selfArgv } from "../self.ts";
import type { AgentName } from "../state/schema.ts";
import type { AgentAdapter, AgentCall } from "./adapter.ts";
import { claude, claudeParser } from "./claude.ts";
import { codex } from "./codex.ts";
import { command } from "./command.ts";
import { gemini } from "./gemini.ts";

/** `wt-loop demo`'s scripted agent: wt-loop itself, printing Claude-shaped stream-json. */
const demo: AgentAdapter = { name: "demo", argv: () => [...selfArgv(), "demo-agent"], parser: claudeParser };

export function adapterFor(name: AgentName): AgentAdapter {
  switch (name) {
    case "claude":
      return claude;
    case "codex":
      return codex;
    case "gemini":
      return gemini;
    case "command":
      return command;
    case "demo":
      return demo;
  }
}

/** Shell words that are not programs: `sh -c` runs them, but there is nothing on PATH to look for. */
const SHELL_WORDS = new Set([
  "exec", "cd", "export", "set", "unset", ".", "source", "eval", "command", "builtin", "time", "if", "for", "while", "until",
  "case", "{", "(", "!", "[[", "alias", "ulimit", "umask", "trap", "readonly", "local", "declare", "typeset", "test", "[",
]);

/**
 * The program `sh -c CMD` will run, when CMD starts with a plain command (a name or a path);
 * null for anything else the shell understands (`FOO=1 ./a.sh`, `exec …`, `cd x && …`, quotes).
 */
export function plainProgram(cmd: string): string | null {
  const first = cmd.trim().split(/\s+/)[0] ?? "";
  if (!first || SHELL_WORDS.has(first) || !/^[\w./+-]+$/.test(first)) return null;
  return first;
}

/**
 * A clear error before the loop starts when the agent's program is missing (docs/agents.md). `cwd` is the
 * worktree, where the agent runs (a relative --agent-cmd path is found from there).
 */
export function checkAgent(name: AgentName, call: Pick<AgentCall, "agentCmd">, pathEnv = process.env.PATH, cwd = process.cwd()): void {
  if (name === "command") {
    if (!call.agentCmd?.trim()) throw new UserError("--agent command needs --agent-cmd CMD: the program to run as the agent.");
    const program = plainProgram(call.agentCmd);
    if (program && !Bun.which(program, { PATH: pathEnv ?? "", cwd }))
      throw new UserError(`The agent command '${program}' was not found. Check --agent-cmd (it runs with sh -c in the worktree, the prompt on stdin).`);
    return;
  }
  if (call.agentCmd) throw new UserError(`--agent-cmd is only used with --agent command (got --agent ${name}).`);
  const bin = adapterFor(name).argv({ prompt: "", model: null, agentCmd: null })[0]!;
  if (!Bun.which(bin, { PATH: pathEnv ?? "" }))
    throw new UserError(`The ${name} agent CLI '${bin}' is not installed (not found on PATH). Install it, or choose another with --agent.`);
}
