// Types only from events.ts: the views that say this (term/render.ts, the loop screen) must not load zod for it.
import type { AuditEnd } from "./events.ts";
import { plural } from "../text/format.ts";

/** An audit run's verdict in words, the same in every view: "passed", "found 2 gaps", "gave no verdict", or the verdict's name. */
export function auditSaid(e: Pick<AuditEnd, "verdict" | "gaps">): string {
  if (e.verdict === "pass") return "passed";
  if (e.verdict === "gaps") return `found ${plural(e.gaps.length, "gap")}`;
  return e.verdict === "missing" ? "gave no verdict" : e.verdict;
}
