/** The audit's line of the receipt (docs/receipt.md), for every view of it: `status`, the end box, the issue comment. */
import type { AuditReceipt } from "../state/schema.ts";
import { formatCost, formatDuration, formatTokens, plural } from "../text/format.ts";

/** "2 rounds · 2 gaps · 1m 20s · 12,300 tokens · $0.40 · last: passed" — the audit's share, apart from the stories'. */
export function auditText(a: AuditReceipt): string {
  const said = a.last === "pass" ? "passed" : a.last === "gaps" ? "found gaps" : a.last === "missing" ? "no verdict" : (a.last ?? "none");
  return [
    plural(a.rounds, "round"),
    plural(a.gaps, "gap"),
    ...(a.runs > a.rounds ? [plural(a.runs, "run")] : []),
    formatDuration(a.duration_ms),
    `${formatTokens(a.tokens)} tokens`,
    formatCost(a.cost_usd),
    `last: ${said}`,
  ].join(" · ");
}
