/**
 * Every agent of a loop that may be signalled: its own (`agent_pid`) and, under `--parallel`, each lane's
 * (`lanes[].agent_pid`) — each only when `ownedBy` proves it is this runner's child that recorded that start
 * time. Force-quit (runner.ts) and `wt-loop stop --force` (control/stop-loop.ts) kill these groups and nothing else.
 */
import { ownedBy } from "../proc/pid.ts";
import type { State } from "./schema.ts";

export function ownAgents(s: State): number[] {
  const claims = [s, ...(s.lanes ?? []).map((l) => ({ ...s, agent_pid: l.agent_pid, agent_started: l.agent_started }))];
  const groups = claims.map((c) => ownedBy(c).agentGroup).filter((g) => g !== null);
  return [...new Set(groups)];
}
