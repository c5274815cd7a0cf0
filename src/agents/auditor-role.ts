/**
 * Who audits under `--audit` (docs/how-it-works.md "The audit"): `--audit-agent` with `--audit-cmd`
 * and `--audit-model`; else the `--review` agent as the reviewer runs (a second opinion the user already
 * chose); else the loop's own agent. `--audit-model` applies to whichever is chosen.
 * Apart from auditor.ts, which imports the agents' registry (and with it zod and every agent's stream
 * schema): `status` shows the auditor and must not load those at start-up (docs/performance.md).
 */
import type { AgentName, State } from "../state/schema.ts";

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
