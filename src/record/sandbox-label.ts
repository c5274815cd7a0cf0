/** How `status`, `list` and the end summary name a loop's `--sandbox` (null: it ran without one). */
import type { State } from "../state/schema.ts";

export function sandboxLabel(s: Pick<State, "sandbox" | "sandbox_network" | "sandbox_allow">): string | null {
  if (!s.sandbox) return null;
  if (s.sandbox_network === "open") return "on · network open";
  const allow = (s.sandbox_allow ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  return `on · network: the agent's API host${allow.length ? ` and ${allow.join(", ")}` : " only"}`;
}
