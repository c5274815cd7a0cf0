/** What `history` and `status` show of a loop's iterations: the table, its total line, the list of archived runs. */
import type { Totals } from "../record/totals.ts";
import { iterationMs } from "../state/run-time.ts";
import type { Iteration } from "../state/schema.ts";
import { stdoutInfo } from "./color.ts";
import { inert, inertDeep } from "./inert.ts";
import { field, formatCost, formatDuration, formatTokens, formatTotalCost, plural, table, truncate, utcDateTime } from "../text/format.ts";

/** The terminal's width; unlimited when piped (a script gets whole lines). */
export const outputWidth = () => {
  const out = stdoutInfo();
  return out.isTTY ? (out.columns ?? 80) : Number.POSITIVE_INFINITY;
};

/** How much of one field (a task, a reason) human output shows: the terminal's width, else 300. */
export const fieldWidth = () => Math.max(40, Math.min(outputWidth(), 300));

/** `--verify`'s column: how the command ended and how long it took ("-" where it did not run). */
const verifyCell = (v: Iteration["verify"]) =>
  !v
    ? "-"
    : `${v.timed_out ? "timed out" : v.exit_code === 0 ? "passed" : v.exit_code === null ? "stopped" : `exit ${v.exit_code}`} ${formatDuration(v.duration_ms)}`;

/** `--review`'s column: the verdict ("-" where no review ran); the reasons are in `--json` and `log`. */
const reviewCell = (r: Iteration["review"]) =>
  !r
    ? "-"
    : `${r.verdict === "approve" ? "approved" : r.verdict === "changes" ? "changes" : r.verdict === "missing" ? "no verdict" : inert(r.verdict)}${r.runs > 1 ? ` (${r.runs} runs)` : ""}${r.put_back.length ? " · tree put back" : ""}`;

const auditVerdict = (a: NonNullable<Iteration["audit"]>) =>
  `${a.verdict === "missing" ? "no verdict" : a.verdict === "gaps" ? `gaps (${a.gaps.length})` : inert(a.verdict)}${a.runs > 1 ? ` (${a.runs} runs)` : ""}`;

/** "2026-11-21 10:00:00": `utcDateTime` without its " UTC" (the column's head says it), made at once. */
const startedCell = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;

/** One row per iteration; the last column is why an attempt did not complete, the row cut to `width`. */
export function historyRows(iterations: Iteration[], width = Number.POSITIVE_INFINITY): string[] {
  // `history` makes 500 rows at start-up, in the interpreter: one indexed pass, cells pushed (no spread of
  // optional columns, no callback a row), and no copy and sort when the iterations are in order already.
  // Lanes (`--parallel`) record iterations as they end: shown in the order they began.
  const its = inOrder(iterations);
  // The verify column only for loops that ran one (`--verify`: its log file is in `--json`); the
  // `unavailable` column only when the agent's service refused some run (most loops never wait).
  let verified = false;
  let reviewed = false;
  let waited = false;
  for (let k = 0; k < its.length; k++) {
    const i = its[k]!;
    if (i.verify) verified = true;
    if (i.review) reviewed = true;
    if (i.unavailable) waited = true;
  }
  const reasonWidth = fieldWidth(); // once: each call asks the terminal
  const head = ["#", "story", "attempt", "outcome", "started (UTC)", "duration", "commits", "tokens", "cost", "timed out"];
  if (verified) head.push("verify");
  if (reviewed) head.push("review");
  if (waited) head.push("unavailable");
  head.push("reason");
  const rows: string[][] = [head];
  // Reasons come from the agent: each string shown is made inert where it is read (not the whole
  // iterations, deep: that walk was a fifth of `history`'s start-up on 500 of them).
  for (let k = 0; k < its.length; k++) {
    const i = its[k]!;
    const audit = i.audit;
    const wait = i.unavailable;
    const row = [
      String(i.n),
      // An audit round (`--audit`) is its own kind of iteration: "audit", its round, its verdict.
      audit ? "audit" : inert(i.story_id ?? "-"),
      String(audit ? audit.round : i.attempt),
      audit ? auditVerdict(audit) : inert(i.outcome),
      startedCell(inert(i.started)),
      // A wait for the agent's service (a usage limit) is part of the iteration's time: said, not hidden.
      wait?.waited_ms ? `${formatDuration(iterationMs(i))} incl. ${formatDuration(wait.waited_ms)} waiting` : formatDuration(iterationMs(i)),
      String(i.commits.length),
      formatTokens(i.tokens_used),
      formatCost(i.cost_usd),
      i.timed_out ? "yes" : "no",
    ];
    if (verified) row.push(verifyCell(i.verify));
    if (reviewed) row.push(reviewCell(i.review));
    if (waited) row.push(wait ? `${wait.runs}× · ${formatDuration(wait.waited_ms)} waited` : "-");
    row.push(i.outcome === "complete" ? "" : field(inert(i.reason ?? ""), reasonWidth));
    rows.push(row);
  }
  const lines = table(rows).split("\n");
  // Piped (unlimited width), a line is never cut: 500 lines not measured a second time.
  return width === Number.POSITIVE_INFINITY ? lines : lines.map((l) => truncate(l, width));
}

/** The iterations by `n` (a stable sort, as before); the same array when they are in that order already. */
function inOrder(iterations: Iteration[]): Iteration[] {
  for (let k = 1; k < iterations.length; k++) if (iterations[k - 1]!.n > iterations[k]!.n) return [...iterations].sort((a, b) => a.n - b.n);
  return iterations;
}

/** `wall`: with lanes (`--parallel`), the time the iterations took once (record/totals.ts `wallMs`), said before their sum. */
export const totalsLine = (t: Totals, wall: number | null = null) =>
  `Total: ${plural(t.iterations, "iteration")} · ${wall !== null && wall < t.duration_ms ? `${formatDuration(wall)} (${formatDuration(t.duration_ms)} of iterations side by side)` : formatDuration(t.duration_ms)}${t.waited_ms ? ` (incl. ${formatDuration(t.waited_ms)} waiting for the agent)` : ""} · ${plural(t.commits, "commit")} · ` +
  `${formatTokens(t.tokens)} tokens · ${formatTotalCost(t.cost_usd)} · ${t.timed_out} timed out` +
  (t.unavailable_runs ? ` · ${plural(t.unavailable_runs, "run")} refused by the agent's service` : "");

interface RunRow {
  run: string;
  started_at: string | null;
  status: string | null;
  iterations: number | null;
  stories: string | null;
  reason: string | null;
}

/** The archived runs, one row each, cut to `width`. */
export function runsTable(runs: RunRow[], width: number): string {
  const rows = inertDeep(runs).map((r) => [
    r.run,
    r.started_at ? utcDateTime(r.started_at) : "-",
    r.status ?? "unreadable",
    String(r.iterations ?? "-"),
    r.stories ?? "-",
    field(r.reason ?? "", fieldWidth()),
  ]);
  return table([["run", "started", "status", "iterations", "stories", "reason"], ...rows])
    .split("\n")
    .map((l) => truncate(l, width))
    .join("\n");
}
