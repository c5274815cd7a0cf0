/** The auditor's flags (`--audit-agent`, `--audit-cmd`, `--audit-model`); who audits is auditor-role.ts. */
import type { AgentName } from "../state/schema.ts";
import { roleFlagMistake, type RoleFlags } from "./role-flags.ts";

export { auditorOf, type Role } from "./auditor-role.ts";

export const AUDIT_FLAGS: RoleFlags = { role: "auditor", name: "--audit-agent", cmd: "--audit-cmd" };

/** The auditor's flags alone: any of them without `--audit` is a mistake, as `--audit-cmd` without `--audit-agent command` is. */
export function auditFlagMistake(o: { audit?: boolean; auditAgent?: AgentName; auditCmd?: string; auditModel?: string }): string | null {
  const stray = o.auditAgent ? "--audit-agent" : o.auditCmd ? "--audit-cmd" : o.auditModel ? "--audit-model" : null;
  if (!o.audit) return stray ? `${stray} is only used with --audit (add --audit, or drop ${stray}).` : null;
  if (o.auditAgent) return roleFlagMistake(o.auditAgent, { agentCmd: o.auditCmd ?? null }, AUDIT_FLAGS);
  return o.auditCmd
    ? "--audit-cmd is only used with --audit-agent command (the default auditor is the --review agent, else --agent, with its own command)."
    : null;
}
