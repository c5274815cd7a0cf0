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

/** A clear error before the loop starts when the agent's program is missing (SPEC §7). */
export function checkAgent(name: AgentName, call: Pick<AgentCall, "agentCmd">, pathEnv = process.env.PATH): void {
  if (name === "command") {
    if (!call.agentCmd) throw new UserError("--agent command needs --agent-cmd CMD: the program to run as the agent.");
    const program = call.agentCmd.trim().split(/\s+/)[0]!;
    if (!Bun.which(program, { PATH: pathEnv ?? "" }))
      throw new UserError(`The agent command '${program}' was not found. Check --agent-cmd (it runs with sh -c, the prompt on stdin).`);
    return;
  }
  if (call.agentCmd) throw new UserError(`--agent-cmd is only used with --agent command (got --agent ${name}).`);
  const bin = adapterFor(name).argv({ prompt: "", model: null, agentCmd: null })[0]!;
  if (!Bun.which(bin, { PATH: pathEnv ?? "" }))
    throw new UserError(`The ${name} agent CLI '${bin}' is not installed (not found on PATH). Install it, or choose another with --agent.`);
}
