// The audit's share of the receipt (issue 34): summed apart from the stories', said the same way by status, the end
// box and the issue comment.
import { expect, test } from "bun:test";
import { auditOf, receiptOf } from "../../src/record/receipt.ts";
import { auditText } from "../../src/record/audit-text.ts";
import { receiptComment } from "../../src/github/issue-text.ts";
import type { AuditRun } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

const audit = (n: number, round: number, verdict: AuditRun["verdict"], gaps: string[], runs = 1) =>
  sampleIteration(n, {
    kind: "audit",
    story_id: null,
    story_title: `Audit (round ${round})`,
    outcome: verdict === "pass" ? "complete" : "rejected",
    tokens_used: 1000,
    cost_usd: 0.25,
    audit: { round, auditor: "claude", verdict, gaps, story_id: verdict === "gaps" ? "3" : null, reason: null, runs, diff_file: "/d", put_back: [] },
  });

test("audit iterations are not a story's: the receipt sums them apart (rounds with a verdict, gaps, runs, tokens, cost)", () => {
  const s = sampleState({
    iterations: [
      sampleIteration(1, { outcome: "complete" }),
      audit(2, 1, "gaps", ["a", "b"], 2),
      sampleIteration(3, { story_id: "3", story_title: "Gaps", outcome: "complete" }),
      audit(4, 2, "pass", []),
    ],
  });
  const r = receiptOf(s);
  expect(r.stories.map((l) => l.id)).toEqual(["1", "3"]);
  expect(r.audit).toMatchObject({ rounds: 2, gaps: 2, runs: 3, tokens: 2000, cost_usd: 0.5, last: "pass" });
  expect(auditText(r.audit!)).toBe("2 rounds · 2 gaps · 3 runs · 2m 10s · 2,000 tokens · $0.50 · last: passed");
  expect(receiptComment(s)).toContain("Audit: 2 rounds · 2 gaps");
  expect(auditOf(sampleState({ iterations: [sampleIteration(1)] }))).toBeNull();
  expect(receiptComment(sampleState({ iterations: [sampleIteration(1)] }))).not.toContain("Audit:");
});
