/** The agent adapters by name, and the check that the chosen agent can be run at all. */
import { UserError } from "../errors.ts";
import { selfArgv } from "../proc/self.ts";
import type { AgentName } from "../state/schema.ts";
import type { AgentAdapter, AgentCall } from "./adapter.ts";
import { AGENT_FLAGS, REVIEW_FLAGS, reviewFlagMistake, roleFlagMistake } from "./role-flags.ts";
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

/** How each agent CLI is installed: said where one is missing (doctor, a story that names it). */
export const AGENT_INSTALL: Partial<Record<AgentName, string>> = {
  claude: "npm install -g @anthropic-ai/claude-code",
  codex: "npm install -g @openai/codex",
  gemini: "npm install -g @google/gemini-cli",
};

/**
 * Shell words that are not programs: `sh -c` runs them, but there is nothing on PATH to look for
 * (keywords, and the builtins of a POSIX sh — dash has `true`, `echo`, `printf` built in, so
 * `--agent-cmd true` runs even where PATH has no /usr/bin/true).
 */
const SHELL_WORDS = new Set([
  "exec",
  "cd",
  "export",
  "set",
  "unset",
  ".",
  "source",
  "eval",
  "command",
  "builtin",
  "time",
  "if",
  "for",
  "while",
  "until",
  "case",
  "{",
  "(",
  "!",
  "[[",
  "alias",
  "ulimit",
  "umask",
  "trap",
  "readonly",
  "local",
  "declare",
  "typeset",
  "test",
  "[",
  ":",
  "true",
  "false",
  "echo",
  "printf",
  "read",
  "pwd",
  "shift",
  "wait",
  "kill",
  "getopts",
  "hash",
  "type",
  "return",
  "exit",
  "break",
  "continue",
  "times",
  "jobs",
  "fg",
  "bg",
  "unalias",
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
 * A clear error before the loop starts when the agent's (or the reviewer's) program is missing
 * (docs/agents.md). `cwd` is the worktree, where it runs (a relative command path is found from there).
 */
export function checkAgent(name: AgentName, call: Pick<AgentCall, "agentCmd">, pathEnv = process.env.PATH, cwd = process.cwd(), f = AGENT_FLAGS): void {
  const mistake = roleFlagMistake(name, call, f);
  if (mistake) throw new UserError(mistake);
  if (name === "command") {
    const program = plainProgram(call.agentCmd!);
    if (program && !Bun.which(program, { PATH: pathEnv ?? "", cwd }))
      throw new UserError(`The ${f.role} command '${program}' was not found. Check ${f.cmd} (it runs with sh -c in the worktree, the prompt on stdin).`);
    return;
  }
  const bin = adapterFor(name).argv({ prompt: "", model: null, agentCmd: null })[0]!;
  if (!Bun.which(bin, { PATH: pathEnv ?? "" }))
    throw new UserError(`The ${name} ${f.role} CLI '${bin}' is not installed (not found on PATH). Install it, or choose another with ${f.name}.`);
}

/** The reviewer's program, checked as the agent's is (its flags too). */
export function checkReviewer(
  review: AgentName | undefined,
  call: Pick<AgentCall, "agentCmd" | "model">,
  pathEnv = process.env.PATH,
  cwd = process.cwd(),
): void {
  const mistake = reviewFlagMistake(review, call);
  if (mistake) throw new UserError(mistake);
  if (review) checkAgent(review, call, pathEnv, cwd, REVIEW_FLAGS);
}
