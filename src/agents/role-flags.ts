/**
 * The flags that choose a role's program (the agent's, the reviewer's, the auditor's) and the mistakes in them
 * alone, without the adapters: the options are checked against these before `run`'s first frame, and the
 * adapters (their output schemas) are not needed there (issue 35).
 */
import type { AgentCall } from "./adapter.ts";
import type { AgentName } from "../state/schema.ts";

/** The flags a role's program is chosen with: the agent's, or the reviewer's. */
export interface RoleFlags {
  role: string;
  name: string;
  cmd: string;
}
export const AGENT_FLAGS: RoleFlags = { role: "agent", name: "--agent", cmd: "--agent-cmd" };

/** A mistake in the flags alone (no look at PATH): `--agent command` without `--agent-cmd`, or `--agent-cmd` with another agent. */
export function roleFlagMistake(name: AgentName, call: Pick<AgentCall, "agentCmd">, f = AGENT_FLAGS): string | null {
  if (name === "command") return call.agentCmd?.trim() ? null : `${f.name} command needs ${f.cmd} CMD: the program to run as the ${f.role}.`;
  return call.agentCmd ? `${f.cmd} is only used with ${f.name} command (got ${f.name} ${name}).` : null;
}

export const REVIEW_FLAGS: RoleFlags = { role: "reviewer", name: "--review", cmd: "--review-cmd" };

/** The reviewer's flags alone: `--review-cmd` or `--review-model` without `--review` is a mistake, as the agent's are. */
export function reviewFlagMistake(review: AgentName | null | undefined, call: Pick<AgentCall, "agentCmd" | "model">): string | null {
  if (review) return roleFlagMistake(review, call, REVIEW_FLAGS);
  const stray = call.agentCmd ? "--review-cmd" : call.model ? "--review-model" : null;
  return stray ? `${stray} is only used with --review (add --review claude|codex|gemini|command, or drop ${stray}).` : null;
}
