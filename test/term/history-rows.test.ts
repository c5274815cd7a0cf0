// `history`'s table is made in the interpreter at start-up (500 rows): its code was cut down for speed, and
// must still print what it printed before, byte for byte. The reference is historyRows as it was at c00c435.
import { describe, expect, test } from "bun:test";
import { totalsOf, totalsWithDurations } from "../../src/record/totals.ts";
import { iterationMs, iterationMsOnce } from "../../src/state/run-time.ts";
import type { Iteration } from "../../src/state/schema.ts";
import { fieldWidth, historyRows } from "../../src/term/history-view.ts";
import { inert } from "../../src/term/inert.ts";
import { field, formatCost, formatDuration, formatTokens, table, truncate, utcDateTime } from "../../src/text/format.ts";
import { sampleIteration } from "../helpers/state.ts";
import { seeded } from "../helpers/seeded.ts";

const verifyCell = (v: Iteration["verify"]) =>
  !v
    ? "-"
    : `${v.timed_out ? "timed out" : v.exit_code === 0 ? "passed" : v.exit_code === null ? "stopped" : `exit ${v.exit_code}`} ${formatDuration(v.duration_ms)}`;
const reviewCell = (r: Iteration["review"]) =>
  !r
    ? "-"
    : `${r.verdict === "approve" ? "approved" : r.verdict === "changes" ? "changes" : r.verdict === "missing" ? "no verdict" : inert(r.verdict)}${r.runs > 1 ? ` (${r.runs} runs)` : ""}${r.put_back.length ? " · tree put back" : ""}`;
const auditVerdict = (a: NonNullable<Iteration["audit"]>) =>
  `${a.verdict === "missing" ? "no verdict" : a.verdict === "gaps" ? `gaps (${a.gaps.length})` : inert(a.verdict)}${a.runs > 1 ? ` (${a.runs} runs)` : ""}`;

/** historyRows at c00c435. */
function rowsBefore(iterations: Iteration[], width = Number.POSITIVE_INFINITY): string[] {
  const its = [...iterations].sort((a, b) => a.n - b.n);
  const verified = its.some((i) => i.verify);
  const reviewed = its.some((i) => i.review);
  const waited = its.some((i) => i.unavailable);
  const head = [
    "#",
    "story",
    "attempt",
    "outcome",
    "started (UTC)",
    "duration",
    "commits",
    "tokens",
    "cost",
    "timed out",
    ...(verified ? ["verify"] : []),
    ...(reviewed ? ["review"] : []),
    ...(waited ? ["unavailable"] : []),
    "reason",
  ];
  const rows = its.map((i) => [
    String(i.n),
    i.audit ? "audit" : inert(i.story_id ?? "-"),
    String(i.audit ? i.audit.round : i.attempt),
    i.audit ? auditVerdict(i.audit) : inert(i.outcome),
    utcDateTime(inert(i.started)).slice(0, -4),
    formatDuration(iterationMs(i)) + (i.unavailable?.waited_ms ? ` incl. ${formatDuration(i.unavailable.waited_ms)} waiting` : ""),
    String(i.commits.length),
    formatTokens(i.tokens_used),
    formatCost(i.cost_usd),
    i.timed_out ? "yes" : "no",
    ...(verified ? [verifyCell(i.verify)] : []),
    ...(reviewed ? [reviewCell(i.review)] : []),
    ...(waited ? [i.unavailable ? `${i.unavailable.runs}× · ${formatDuration(i.unavailable.waited_ms)} waited` : "-"] : []),
    i.outcome === "complete" ? "" : field(inert(i.reason ?? ""), fieldWidth()),
  ]);
  return table([head, ...rows])
    .split("\n")
    .map((l) => truncate(l, width));
}

// The same data on every run (test/helpers/seeded.ts): an integer below n.
function random(seed: number) {
  const next = seeded(seed);
  return (n: number) => Math.floor(next() * n);
}

const REASONS = [
  null,
  "",
  "tests fail",
  "界 wide 界",
  "a\x1b]52;c;x\x07b",
  "first line\nsecond line",
  "x".repeat(400),
  "界".repeat(200),
  "👍🏽 done-ish",
  "ends in a tab\t",
  "trailing spaces  ",
  "cr\r\nlf",
  "lone cr\r",
  "\u00a0",
];
const STARTS = ["2026-11-21T10:00:00.000Z", "2026-11-21T10:00:05+01:00", "not a time", "2026-01-02T23:59:59.999Z", "2026-11-21T10:00:00.000Z\x1b[2J", "界"];
const STORIES = [null, "1", "12", "界面", "👨‍👩‍👧", "s\x1b[31m", "cr\r", "a-very-long-story-identifier-indeed", "é"];
const OUTCOMES = ["complete", "failed", "no_progress", "weird\x9b", "rejected", "界"];
const VERDICTS = ["approve", "changes", "missing", "stopped", "unavailable", "odd\x1b", "界面"];
const AUDIT_VERDICTS = ["pass", "gaps", "repeated", "missing", "stopped", "unavailable", "界\x07"];
const TOKENS = [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 4_999_999_999, Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, Number.NaN, Number.POSITIVE_INFINITY];
const COSTS = [null, 0, 0.004, 0.12, 1.5, 9.999, 1234.5, 0.005, 1e21];
const DURATIONS = [0, 999, 59_499, 59_500, 60_000, 3_599_499, 3_600_000, 86_400_000 * 3, Number.NaN];

function iterations(r: (n: number) => number, count: number): Iteration[] {
  return Array.from({ length: count }, (_, k) => {
    const it = sampleIteration(1 + r(count * 2), {
      story_id: r(5) ? (r(3) ? String(r(30)) : STORIES[r(STORIES.length)]!) : null,
      attempt: 1 + r(4),
      outcome: OUTCOMES[r(OUTCOMES.length)] as Iteration["outcome"],
      started: STARTS[r(STARTS.length)]!,
      ended: r(2) ? "2026-11-21T11:02:03.000Z" : "2026-11-22T10:00:00.000Z",
      commits: Array.from({ length: r(3) }, () => "a".repeat(40)),
      tokens_used: r(3) ? r(5_000_000) : TOKENS[r(TOKENS.length)]!,
      cost_usd: r(4) ? r(500) / 100 : COSTS[r(COSTS.length)]!,
      timed_out: r(5) === 0,
      reason: REASONS[r(REASONS.length)]!,
      ...(r(4) === 0
        ? {
            verify: {
              exit_code: r(3) ? 0 : r(2) ? null : 2,
              timed_out: r(6) === 0,
              duration_ms: r(3) ? r(90_000) : DURATIONS[r(DURATIONS.length)]!,
              log_file: "/w/v.log",
            },
          }
        : {}),
      ...(r(4) === 0 ? { unavailable: { runs: 1 + r(3), waited_ms: r(3) ? r(600_000) : DURATIONS[r(DURATIONS.length)]! } } : {}),
      ...(r(5) === 0
        ? {
            review: {
              reviewer: "claude",
              verdict: VERDICTS[r(VERDICTS.length)]!,
              reason: null,
              runs: 1 + r(2),
              tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
              cost_usd: null,
              duration_ms: 10,
              log_file: "/w/r.jsonl",
              diff_file: "/w/r.diff",
              put_back: r(3) ? [] : ["a.ts"],
            },
          }
        : {}),
      ...(r(6) === 0
        ? {
            kind: "audit",
            audit: {
              round: 1 + r(3),
              auditor: "claude",
              verdict: AUDIT_VERDICTS[r(AUDIT_VERDICTS.length)]!,
              gaps: Array.from({ length: r(4) }, () => "gap"),
              story_id: null,
              reason: null,
              runs: 1 + r(2),
              diff_file: "/w/a.diff",
              put_back: [],
            },
          }
        : {}),
      // A field a later version may add: shown nowhere.
      ...(r(8) === 0 ? { later_field: "界\x1b" } : {}),
    } as Partial<Iteration>);
    return it;
  });
}

describe("history's rows", () => {
  test("are what they were before, piped and cut to a terminal's width, on 300 generated loops", () => {
    const r = random(36);
    for (let t = 0; t < 600; t++) {
      const its = iterations(r, 1 + r(40));
      expect(historyRows(its)).toEqual(rowsBefore(its));
      // With the durations `history` reads once for its totals and its rows.
      expect(historyRows(its, Number.POSITIVE_INFINITY, its.map(iterationMsOnce))).toEqual(rowsBefore(its));
      expect(totalsOf(its, its.map(iterationMsOnce))).toEqual(totalsOf(its));
      // One pass for both (`history`): the same figures, keys in the same order (`--json` prints them).
      const both = totalsWithDurations(its);
      expect(JSON.stringify(both.totals)).toBe(JSON.stringify(totalsOf(its)));
      expect(both.ms).toEqual(its.map(iterationMs));
      const width = r(4) ? 20 + r(200) : r(20);
      expect(historyRows(its, width)).toEqual(rowsBefore(its, width));
    }
  });

  test("their durations and totals, read in one pass where nothing was kept (a fresh process), are totalsOf's", async () => {
    const r = random(37);
    const loops = Array.from({ length: 60 }, () => iterations(r, 1 + r(40)));
    const child = Bun.spawn(
      [
        "bun",
        "-e",
        `import { totalsWithDurations } from ${JSON.stringify(`${import.meta.dir}/../../src/record/totals.ts`)};
import { someIterationMsKept } from ${JSON.stringify(`${import.meta.dir}/../../src/state/run-time.ts`)};
const kept = someIterationMsKept(); const out = JSON.parse(await Bun.stdin.text()).map(totalsWithDurations);
console.log(JSON.stringify({ kept, keptAfter: someIterationMsKept(), out }));`,
      ],
      { stdin: new Blob([JSON.stringify(loops)]), stdout: "pipe" },
    );
    const fresh = JSON.parse(await new Response(child.stdout).text());
    expect(await child.exited).toBe(0);
    expect(fresh.kept).toBe(false);
    expect(fresh.keptAfter).toBe(false); // none kept on the way
    // The same loops as the child read them (JSON: NaN tokens are null there too).
    const read: Iteration[][] = JSON.parse(JSON.stringify(loops));
    expect(JSON.stringify(fresh.out)).toBe(JSON.stringify(read.map((its) => ({ totals: totalsOf(its), ms: its.map(iterationMs) }))));
    expect(read.flat().some((i) => Number.isNaN(iterationMs(i)))).toBe(true); // "not a time" reaches a sum
  });

  test("and on 500 iterations like the start-up bench's", () => {
    const its = Array.from({ length: 500 }, (_, k) =>
      sampleIteration(k + 1, { story_id: String((k + 1) % 25), outcome: k % 2 ? "complete" : "failed", reason: k % 2 ? null : "the tests fail" }),
    );
    expect(historyRows(its)).toEqual(rowsBefore(its));
    expect(historyRows(its, Number.POSITIVE_INFINITY, its.map(iterationMsOnce))).toEqual(rowsBefore(its));
  });
});
