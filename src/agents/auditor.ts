/**
 * Who audits under `--audit` (docs/how-it-works.md "The audit"): `--audit-agent` with `--audit-cmd`
 * and `--audit-model`; else the `--review` agent as the reviewer runs (a second opinion the user already
 * chose); else the loop's own agent. `--audit-model` applies to whichever is chosen.
 */
import type { AgentName, State } from "../state/schema.ts";
import { roleFlagMistake, type RoleFlags } from "./registry.ts";

export interface Role {
  name: AgentName;
  cmd: string | null;
  model: string | null;
}

type Chooses = Pick<State, "audit_agent" | "audit_cmd" | "audit_model" | "review" | "review_cmd" | "review_model" | "agent" | "agent_cmd" | "model">;

export function auditorOf(s: Chooses): Role {
  const chosen: Role = s.audit_agent
    ? { name: s.audit_agent, cmd: s.audit_cmd, model: null }
    : s.review
      ? { name: s.review, cmd: s.review_cmd, model: s.review_model }
      : { name: s.agent, cmd: s.agent_cmd, model: s.model };
  return { ...chosen, model: s.audit_model ?? chosen.model };
}

export const AUDIT_FLAGS: RoleFlags = { role: "auditor", name: "--audit-agent", cmd: "--audit-cmd" };

/** The auditor's flags alone: any of them without `--audit` is a mistake, as `--audit-cmd` without `--audit-agent command` is. */
export function auditFlagMistake(o: { audit?: boolean; auditAgent?: AgentName; auditCmd?: string; auditModel?: string }): string | null {
  const stray = o.auditAgent ? "--audit-agent" : o.auditCmd ? "--audit-cmd" : o.auditModel ? "--audit-model" : null;
  if (!o.audit) return stray ? `${stray} is only used with --audit (add --audit, or drop ${stray}).` : null;
  if (o.auditAgent) return roleFlagMistake(o.auditAgent, { agentCmd: o.auditCmd ?? null }, AUDIT_FLAGS);
  return o.auditCmd ? "--audit-cmd is only used with --audit-agent command (the default auditor is the --review agent, else --agent, with its own command)." : null;
}
