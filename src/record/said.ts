// How the line stream (term/render.ts) and the loop screen (screen/story-record.ts) word the same events, so the two
// cannot drift. Types only from events.ts and stream.ts: those views must not load zod for it.
import type { UnavailableEvent } from "../agents/stream.ts";
import type { AuditEnd, LoopEvent } from "./events.ts";
import { plural } from "../text/format.ts";

/** An audit run's verdict in words, the same in every view: "passed", "found 2 gaps", "gave no verdict", or the verdict's name. */
export function auditSaid(e: Pick<AuditEnd, "verdict" | "gaps">): string {
  if (e.verdict === "pass") return "passed";
  if (e.verdict === "gaps") return `found ${plural(e.gaps.length, "gap")}`;
  return e.verdict === "missing" ? "gave no verdict" : e.verdict;
}

type VerifyEnd = Extract<LoopEvent, { type: "VerifyEnd" }>;
/** How a `--verify` run ended: "passed", "timed out", "stopped" or "failed (exit 1)". */
export const verifySaid = (e: Pick<VerifyEnd, "passed" | "timed_out" | "exit_code">): string =>
  e.passed ? "passed" : e.timed_out ? "timed out" : e.exit_code === null ? "stopped" : `failed (exit ${e.exit_code})`;

/** A review run's verdict in words: "approved", "asked for changes", "gave no verdict", or the verdict's name. */
export const reviewSaid = (verdict: Extract<LoopEvent, { type: "ReviewEnd" }>["verdict"]): string =>
  verdict === "approve" ? "approved" : verdict === "changes" ? "asked for changes" : verdict === "missing" ? "gave no verdict" : verdict;

/** An agent refused by its service: "✖ agent cannot log in: …" (waiting will not help) or "⏸ agent unavailable: …". */
export const unavailableSaid = (ev: Pick<UnavailableEvent, "kind" | "reason">): string =>
  `${ev.kind === "auth" ? "✖ agent cannot log in" : "⏸ agent unavailable"}: ${ev.reason}`;
