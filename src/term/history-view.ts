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

/** `--verify`'s column: how the command ended and how long it took (the line says "-" where it did not run). */
const verifyCell = (v: NonNullable<Iteration["verify"]>) =>
  `${v.timed_out ? "timed out" : v.exit_code === 0 ? "passed" : v.exit_code === null ? "stopped" : `exit ${v.exit_code}`} ${formatDuration(v.duration_ms)}`;

/** `--review`'s column: the verdict (the line says "-" where no review ran); the reasons are in `--json` and `log`. */
const reviewCell = (r: NonNullable<Iteration["review"]>) =>
  `${r.verdict === "approve" ? "approved" : r.verdict === "changes" ? "changes" : r.verdict === "missing" ? "no verdict" : inert(r.verdict)}` +
  `${r.runs > 1 ? ` (${r.runs} runs)` : ""}${r.put_back.length ? " · tree put back" : ""}`;

const auditVerdict = (a: NonNullable<Iteration["audit"]>) =>
  `${a.verdict === "missing" ? "no verdict" : a.verdict === "gaps" ? `gaps (${a.gaps.length})` : inert(a.verdict)}${a.runs > 1 ? ` (${a.runs} runs)` : ""}`;

/**
 * One row per iteration; the last column is why an attempt did not complete, the row cut to `width`.
 * Laid out as text/format.ts `table` lays a table out (columns padded to their widest cell, two spaces
 * between, the last not padded, trailing spaces trimmed), but here, not there: `history` makes 500 rows
 * at start-up, and `table`'s loops over 5,500 cells ran in the interpreter until the JIT compiled them
 * twice (baseline, then DFG) while the command ran. Here a row is one call (a function called a few dozen
 * times is compiled early, a long loop's body late), each column written out; a cell made of numbers
 * (ours, printable ASCII) is as wide as it is long, and only the text a state brings (story, outcome,
 * start, verdicts) is measured; a line is one template.
 */
export function historyRows(iterations: Iteration[], width = Number.POSITIVE_INFINITY, durations?: readonly number[]): string[] {
  // Lanes (`--parallel`) record iterations as they end: shown in the order they began (then the
  // durations given, in the iterations' order, are not theirs: each is read again).
  const its = inOrder(iterations);
  const ms = its === iterations ? durations : undefined;
  // Each column's width, the head's first: #, story, attempt, outcome, started, duration, commits,
  // tokens, cost, timed out, verify, review, unavailable. The verify column only for loops that ran one
  // (`--verify`: its log file is in `--json`); the review column only for `--review`; the `unavailable`
  // column only when the agent's service refused some run (most loops never wait): the rows say which.
  const cols: Columns = { w: [1, 5, 7, 7, 13, 8, 7, 6, 4, 9, 6, 6, 11], verified: false, reviewed: false, waited: false, reasonWidth: fieldWidth(), gap: [] };
  const rows: Row[] = [];
  for (let k = 0; k < its.length; k++) rows.push(cellsOf(its[k]!, ms ? ms[k]! : iterationMs(its[k]!), cols));
  // What follows a cell short of its column's width by k: k spaces and the two between columns.
  const most = Math.max(...cols.w);
  for (let k = 0; k <= most; k++) cols.gap.push(" ".repeat(k + 2));
  const lines: string[] = [];
  if (cols.verified || cols.reviewed || cols.waited) for (let k = -1; k < rows.length; k++) lines.push(lineOf(k < 0 ? HEAD : rows[k]!, cols));
  else plainLines(rows, cols, lines);
  // Piped (unlimited width), a line is never cut: 500 lines not measured a second time.
  if (width === Number.POSITIVE_INFINITY) return lines;
  for (let k = 0; k < lines.length; k++) lines[k] = truncate(lines[k]!, width);
  return lines;
}

/**
 * The lines of a table with no optional column (most loops), as lineOf makes them, in one loop: each padded
 * column's gaps looked up by its cell's width in a list of its own, held in a local (`gap[w[k] - width]`
 * was five interpreted operations a cell, nine cells a line, 500 lines).
 */
function plainLines(rows: Row[], cols: Columns, lines: string[]): void {
  const pads: string[][] = [];
  for (let k = 0; k < 10; k++) {
    const pad: string[] = [];
    for (let n = 0; n <= cols.w[k]!; n++) pad.push(cols.gap[cols.w[k]! - n]!);
    pads.push(pad);
  }
  const [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9] = pads as [string[], string[], string[], string[], string[], string[], string[], string[], string[], string[]];
  for (let k = -1; k < rows.length; k++) {
    const r = k < 0 ? HEAD : rows[k]!;
    const fixed =
      `${r[0]}${p0[r[0].length]}${r[1]}${p1[r[2]]}${r[3]}${p2[r[3].length]}${r[4]}${p3[r[5]]}${r[6]}${p4[r[7]]}` +
      `${r[8]}${p5[r[8].length]}${r[9]}${p6[r[9].length]}${r[10]}${p7[r[10].length]}${r[11]}${p8[r[11].length]}${r[12]}`;
    lines.push(r[18] === "" ? fixed : `${fixed}${p9[r[12].length]}${r[18]}`.trimEnd());
  }
}

/** What the rows share: the columns' widths so far, which optional columns show, the gaps after a cell. */
interface Columns {
  w: number[];
  verified: boolean;
  reviewed: boolean;
  waited: boolean;
  reasonWidth: number;
  gap: string[];
}

/** A row's cells in column order, with the display widths of those that may hold more than plain ASCII; null: no verify, review, unavailable. */
type Row = [
  n: string,
  story: string,
  storyWidth: number,
  attempt: string,
  outcome: string,
  outcomeWidth: number,
  started: string,
  startedWidth: number,
  duration: string,
  commits: string,
  tokens: string,
  cost: string,
  timedOut: string,
  verify: string | null,
  review: string | null,
  reviewWidth: number,
  unavailable: string | null,
  unavailableWidth: number,
  reason: string,
];

const HEAD: Row = [
  "#",
  "story",
  5,
  "attempt",
  "outcome",
  7,
  "started (UTC)",
  13,
  "duration",
  "commits",
  "tokens",
  "cost",
  "timed out",
  "verify",
  "review",
  6,
  "unavailable",
  11,
  "reason",
];

// Printable ASCII: nothing in it to make inert, and as many columns as characters.
const PLAIN = /^[\x20-\x7e]*$/;

/** Iteration `i`'s cells (`ms`: its duration); the columns widened to them. */
function cellsOf(i: Iteration, ms: number, cols: Columns): Row {
  const audit = i.audit;
  const wait = i.unavailable;
  const n = `${i.n}`;
  const attempt = `${audit ? audit.round : i.attempt}`;
  // The text a state brings is made inert where it is read, and measured, unless it is printable ASCII
  // (one test for the three: nothing to make inert, a column a character).
  let story: string;
  let outcome: string;
  let started: string;
  let storyW: number;
  let outcomeW: number;
  let startedW: number;
  const sid = i.story_id ?? "-";
  if (!audit && PLAIN.test(`${sid} ${i.outcome} ${i.started}`)) {
    story = sid;
    outcome = i.outcome;
    started = `${i.started.slice(0, 10)} ${i.started.slice(11, 19)}`; // the column's head says UTC
    storyW = story.length;
    outcomeW = outcome.length;
    startedW = started.length;
  } else {
    // An audit round (`--audit`) is its own kind of iteration: "audit", its round, its verdict.
    story = audit ? "audit" : inert(sid);
    outcome = audit ? auditVerdict(audit) : inert(i.outcome);
    const at = inert(i.started);
    started = `${at.slice(0, 10)} ${at.slice(11, 19)}`;
    storyW = Bun.stringWidth(story);
    outcomeW = Bun.stringWidth(outcome);
    startedW = Bun.stringWidth(started);
  }
  // A wait for the agent's service (a usage limit) is part of the iteration's time: said, not hidden.
  const took = formatDuration(ms);
  const duration = wait?.waited_ms ? `${took} incl. ${formatDuration(wait.waited_ms)} waiting` : took;
  const commits = `${i.commits.length}`;
  const tokens = formatTokens(i.tokens_used);
  const cost = formatCost(i.cost_usd);
  const timed = i.timed_out ? "yes" : "no";
  // The optional columns' cells of an iteration that has them (null otherwise: the line shows "-").
  const w = cols.w;
  let verify: string | null = null;
  let review: string | null = null;
  let unavailable: string | null = null;
  let reviewW = 0;
  let unavailableW = 0;
  if (i.verify) {
    verify = verifyCell(i.verify);
    cols.verified = true;
    if (verify.length > w[10]!) w[10] = verify.length;
  }
  if (i.review) {
    review = reviewCell(i.review);
    reviewW = Bun.stringWidth(review);
    cols.reviewed = true;
    if (reviewW > w[11]!) w[11] = reviewW;
  }
  if (wait) {
    unavailable = `${wait.runs}× · ${formatDuration(wait.waited_ms)} waited`;
    unavailableW = Bun.stringWidth(unavailable);
    cols.waited = true;
    if (unavailableW > w[12]!) w[12] = unavailableW;
  }
  // A short reason of printable ASCII is shown whole, as `field` would (one line, within its width).
  const why = i.reason ?? "";
  const reason = i.outcome === "complete" ? "" : why.length <= cols.reasonWidth && PLAIN.test(why) ? why : field(inert(why), cols.reasonWidth);
  if (n.length > w[0]!) w[0] = n.length;
  if (storyW > w[1]!) w[1] = storyW;
  if (attempt.length > w[2]!) w[2] = attempt.length;
  if (outcomeW > w[3]!) w[3] = outcomeW;
  if (startedW > w[4]!) w[4] = startedW;
  if (duration.length > w[5]!) w[5] = duration.length;
  if (commits.length > w[6]!) w[6] = commits.length;
  if (tokens.length > w[7]!) w[7] = tokens.length;
  if (cost.length > w[8]!) w[8] = cost.length;
  return [
    n,
    story,
    storyW,
    attempt,
    outcome,
    outcomeW,
    started,
    startedW,
    duration,
    commits,
    tokens,
    cost,
    timed,
    verify,
    review,
    reviewW,
    unavailable,
    unavailableW,
    reason,
  ];
}

/** Row `r` as a line: every column but the last padded to its width, two spaces between, no trailing space. */
function lineOf(r: Row, cols: Columns): string {
  const w = cols.w;
  const gap = cols.gap;
  // Up to the "timed out" cell ("yes", "no": no trailing space to trim when nothing follows).
  const fixed =
    `${r[0]}${gap[w[0]! - r[0].length]}${r[1]}${gap[w[1]! - r[2]]}${r[3]}${gap[w[2]! - r[3].length]}${r[4]}${gap[w[3]! - r[5]]}${r[6]}${gap[w[4]! - r[7]]}` +
    `${r[8]}${gap[w[5]! - r[8].length]}${r[9]}${gap[w[6]! - r[9].length]}${r[10]}${gap[w[7]! - r[10].length]}${r[11]}${gap[w[8]! - r[11].length]}${r[12]}`;
  if (!(cols.verified || cols.reviewed || cols.waited)) return r[18] === "" ? fixed : `${fixed}${gap[w[9]! - r[12].length]}${r[18]}`.trimEnd();
  const timed = `${fixed}${gap[w[9]! - r[12].length]}`;
  const verify = !cols.verified ? "" : r[13] !== null ? `${r[13]}${gap[w[10]! - r[13].length]}` : `-${gap[w[10]! - 1]}`;
  const review = !cols.reviewed ? "" : r[14] !== null ? `${r[14]}${gap[w[11]! - r[15]]}` : `-${gap[w[11]! - 1]}`;
  const unavailable = !cols.waited ? "" : r[16] !== null ? `${r[16]}${gap[w[12]! - r[17]]}` : `-${gap[w[12]! - 1]}`;
  return `${timed}${verify}${review}${unavailable}${r[18]}`.trimEnd();
}

/** The iterations by `n` (a stable sort, as before); the same array when they are in that order already. */
function inOrder(iterations: Iteration[]): Iteration[] {
  for (let k = 1; k < iterations.length; k++) if (iterations[k - 1]!.n > iterations[k]!.n) return [...iterations].sort((a, b) => a.n - b.n);
  return iterations;
}

/** `wall`: with lanes (`--parallel`), the time the iterations took once (record/totals.ts `wallMs`), said before their sum. */
export const totalsLine = (t: Totals, wall: number | null = null) =>
  `Total: ${plural(t.iterations, "iteration")} · ` +
  `${
    wall !== null && wall < t.duration_ms
      ? `${formatDuration(wall)} (${formatDuration(t.duration_ms)} of iterations side by side)`
      : formatDuration(t.duration_ms)
  }` +
  `${t.waited_ms ? ` (incl. ${formatDuration(t.waited_ms)} waiting for the agent)` : ""} · ${plural(t.commits, "commit")} · ` +
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
