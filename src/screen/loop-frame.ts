/**
 * The loop screen's Frame from the model: the header (worktree, change, status with the wait's
 * countdown, iteration, attempt, elapsed, tokens, cost and budget), the story list and gauge, the tabs,
 * the body's window, the footer and the overlay.
 */
import { issueShort } from "../github/label.ts";
import { isFinal } from "../state/final.ts";
import type { State } from "../state/schema.ts";
import { pausedMs, runTimeMs } from "../state/run-time.ts";
import { formatCost, formatTotalCost, formatDuration, formatTokens } from "../text/format.ts";
import { inertLine } from "../term/inert.ts";
import type { Clock, Frame, Line, ListRow, Span, Tone } from "./frame.ts";
import type { LoopScreen } from "./loop-screen.ts";
import { LIMIT_STEP, overlayFrame } from "./loop-overlays.ts";
import { tabTitle, TABS } from "./loop-tabs.ts";
import { AUDIT_ENTRY, type StoryEntry, type StoryStatus } from "./story-record.ts";
import { listWidth } from "./geometry.ts";
import { fit, hintLine, wrap } from "./text.ts";
import { cut } from "../text/width.ts";

/** What `monitor` shows until a loop starts in its worktree (its line stream says the same). */
export const WAITING = "Waiting for loop to start…";

/** Header rows per layout: the body's height depends on them (geometry.ts). */
export const HEADER_ROWS: Record<Frame["layout"], number> = { split: 3, full: 3, compact: 1 };

const GLYPH: Record<StoryStatus, { glyph: string; tone: Tone }> = {
  done: { glyph: "✓", tone: "good" },
  running: { glyph: "▶", tone: "accent" },
  pending: { glyph: "·", tone: "dim" },
  failed: { glyph: "✗", tone: "bad" },
  stuck: { glyph: "‼", tone: "bad" },
};

const STATUS_TONE: Record<string, Tone> = { running: "accent", starting: "dim", done: "good", stopped: "warn", stuck: "bad", stalled: "bad", paused: "warn" };

export function composeFrame(m: LoopScreen, now: number): Frame {
  const layout = m.layout;
  const size = m.bodySize();
  const content = m.content(now);
  const width = Math.max(1, size.cols);
  const total = content.rows(width);
  const max = Math.max(0, total - size.rows);
  if (m.follow) m.top = max;
  else m.top = Math.min(m.top, max);
  const sel = m.selected();
  const room = layout === "split" ? listWidth(m.cols) - 2 - ROW_MARKS : 0;
  // --parallel: every story in a lane is at work (the state says so even when its events came before a `monitor`).
  const lanes = new Map(!m.st || isFinal(m.st.status) ? [] : m.st.lanes.map((l) => [l.story_id, l.status]));
  const rows: ListRow[] = m.record.stories.map((s) => {
    const step = lanes.get(s.id);
    const title = inertLine(s.id === AUDIT_ENTRY ? s.title : `${s.id}. ${s.title}`);
    return { ...GLYPH[step ? "running" : s.status], title, detail: figures(s, title, room, step && step !== "running" ? step : ""), selected: s === sel };
  });
  // The gauge counts stories; the audit's entry is not one.
  const stories = m.record.stories.filter((s) => s.id !== AUDIT_ENTRY);
  const done = stories.filter((s) => s.status === "done").length;
  // Scrolled up in the Agent tab while the agent writes on: the last row says there is more below.
  let lines = content.window(width, m.top, size.rows);
  if (m.tabName === "Agent" && !m.follow && total > m.seen && m.seen > 0 && size.rows > 1)
    lines = [...lines.slice(0, size.rows - 1), [{ text: cut("▼ new output below · End follows it", width), tone: "warn", bold: true }]];
  const { header, footer } = clockParts(m, now, sel);
  return {
    layout,
    header,
    list: { title: m.chosen ? "Stories" : "Stories (following)", rows, gauge: stories.length ? { done, total: stories.length } : null },
    tabs: TABS.map((t, i) => ({ title: i === m.tab ? tabTitle(t, sel, m.pick) : t, active: i === m.tab })),
    body: { lines, top: m.top, total, following: m.follow },
    footer,
    overlay: overlayFrame(m, m.rows),
  };
}

/**
 * The header and the footer: every part of the frame that time alone changes (the elapsed clock, a wait's
 * countdown, a message that expires). The renderer's 1 s tick recomposes only these while nothing else moved.
 */
export function clockParts(m: LoopScreen, now: number, sel = m.selected()): Clock {
  const compact = m.layout === "compact";
  return {
    header: [...headerLines(m, now, compact), ...(compact ? [] : [titleLine(sel, m.cols), ...limitLines(m)]), ...bannerLines(m)],
    footer: footer(m, now),
  };
}

/**
 * While the loop runs with more stories left than iterations (each story takes at least one): it cannot
 * finish, and it says so here (the start's warning waits behind the screen until the terminal is back,
 * hours later). Gone once the limit is raised. Not in the compact layout, whose header is one row.
 */
export function limitLines(m: LoopScreen): Line[] {
  const st = m.st;
  if (m.end || m.layout === "compact" || !st || st.done_criteria !== "tasks" || isFinal(st.status)) return [];
  const max = st.max_iterations;
  const stories = m.record.stories.filter((s) => s.id !== AUDIT_ENTRY && s.status !== "done");
  const atWork = stories.filter((s) => s.status === "running").length; // their iterations are counted already
  const iterationsLeft = Math.max(0, max - Math.max(m.record.loop.iteration, st.current_iteration)) + atWork;
  if (stories.length <= iterationsLeft) return [];
  // Short enough for 80 columns with its key (+ raises the limit by LIMIT_STEP, as the help says).
  const text = `⚠ ${stories.length} stories left, ${iterationsLeft} iterations left: the loop cannot finish · + adds ${LIMIT_STEP}`;
  return [[{ text: cut(text, Math.max(1, m.cols)), tone: "warn" }]];
}

/** The selected story's whole title (the list cuts it to its width), cut only where the screen ends. */
function titleLine(s: StoryEntry | null, cols: number): Line {
  if (!s) return [];
  const g = GLYPH[s.status];
  const title = inertLine(s.id === AUDIT_ENTRY ? s.title : `${s.id}. ${s.title}`);
  return [
    { text: g.glyph, tone: g.tone },
    { text: ` ${cut(title, Math.max(1, cols - 2))}`, bold: true },
  ];
}

/** What a story row spends besides its title and figures: the selection mark, the glyph, a space. */
const ROW_MARKS = 3;
/** The title's share of a row before any figure is shown beside it (a shorter title needs only its own width). */
const TITLE_FIRST = 24;

/**
 * A story's figures (its lane's step, attempts, tokens, cost) as many as fit beside its title in `room` columns: the
 * title keeps its width (up to TITLE_FIRST) and the figures give way — tokens shortened, then left
 * out, then the cost, then the attempts. No room (no list pane): none.
 */
export function figures(s: Pick<StoryEntry, "attempts" | "tokens" | "cost">, title: string, room: number, step = ""): string {
  const tries = s.attempts.length ? `×${s.attempts.length}` : "";
  const cost = s.cost !== null ? formatCost(s.cost) : "";
  const tokens = s.tokens ? formatTokens(s.tokens) : "";
  const short = s.tokens ? shortTokens(s.tokens) : "";
  const wanted = Math.min(Bun.stringWidth(title), TITLE_FIRST);
  // A lane's step (--parallel: `queued`, `integrating`) stays while any figure does.
  for (const parts of [[step, tries, tokens, cost], [step, tries, short, cost], [step, tries, cost], [step, tries], [step]]) {
    const detail = parts.filter(Boolean).join(" ");
    if (!detail || room - Bun.stringWidth(detail) - 1 >= wanted) return detail;
  }
  return "";
}

/** 1234 → "1.2k", 2345678 → "2.3M": a story's tokens where the row is short of room. */
export function shortTokens(n: number): string {
  if (n < 1000) return String(n);
  const [v, unit] = n < 1e6 ? [n / 1e3, "k"] : [n / 1e6, "M"];
  return `${v < 10 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}${unit}`;
}

function status(m: LoopScreen, now: number): Span[] {
  const r = m.record.loop;
  const st: string = m.st?.status ?? r.complete?.status ?? (r.iteration ? "running" : "starting");
  const waiting = r.complete ? null : (r.waiting ?? (m.st?.waiting ? { until: Date.parse(m.st.waiting.until), reason: "" } : null));
  if (waiting && waiting.until > now)
    return [
      { text: `waiting ${formatDuration(waiting.until - now)}`, tone: "warn", bold: true },
      ...(waiting.reason ? [{ text: ` (${cut(waiting.reason, 60)})`, tone: "dim" as Tone }] : []),
    ];
  return [{ text: st, tone: STATUS_TONE[st] ?? "normal", bold: true }];
}

/** Up to this run time the header's elapsed time shows seconds. */
const SECONDS_FOR_MS = 60_000;

/**
 * The header's elapsed time: as `status` shows it for the first minute (`59s`), then in whole minutes, never
 * ahead of `status` (`12m` where it says `12m 40s`, and past the hour `1h 02m` as `status` too). After the first
 * minute the clock moves once a minute, so a screen left open on a silent agent draws once a minute, not every
 * second (idle CPU, docs/performance.md); the seconds stay where they show that it started.
 */
export function clockElapsed(ms: number): string {
  return ms < SECONDS_FOR_MS || ms >= 3_600_000 ? formatDuration(ms) : `${Math.floor(ms / 60_000)}m`;
}

function headerLines(m: LoopScreen, now: number, compact: boolean): Line[] {
  const r = m.record.loop;
  const st = m.st;
  const name = inertLine(st?.worktree_name ?? r.worktree ?? "loop");
  const change = st?.change ?? r.change ?? (st?.github ? issueShort(st.github) : null);
  const maxIt = st?.max_iterations ?? r.maxIterations;
  const current = r.current ? m.record.stories.find((s) => s.id === r.current) : null;
  const attempt = current?.id === AUDIT_ENTRY ? undefined : current?.attempts.at(-1)?.attempt; // an audit's rounds are not attempts
  const started = st ? Date.parse(st.started_at) : r.since;
  const ended = st?.ended_at ? Date.parse(st.ended_at) : r.complete && "ts" in r.complete ? Date.parse(String(r.complete.ts)) : null;
  // Paused time left out, as `status` counts it (state/run-time.ts).
  const ran = st
    ? (runTimeMs(st, now) ?? (ended !== null ? ended - Date.parse(st.started_at) - pausedMs(st, ended) : null))
    : started !== null
      ? (ended ?? now) - started
      : null;
  const elapsed = ran !== null ? clockElapsed(Math.max(0, ran)) : "-";
  const iteration = `iteration ${r.iteration}/${maxIt ?? "?"}`;
  const dot: Span = { text: " · ", tone: "dim" };
  // `monitor` before any loop: what the line stream's monitor says, not a loop "starting" at iteration 0.
  if (!st && r.since === null && !m.end && m.o.mode === "monitor")
    return [[{ text: name, bold: true }, dot, { text: WAITING, tone: "dim" }], ...(compact ? [] : [[]])];
  const first: Span[] = [{ text: name, bold: true }, ...(change ? [dot, { text: inertLine(change) }] : []), dot, ...status(m, now)];
  const money = spending(m, st);
  if (compact) return [[...first, dot, { text: `${r.iteration}/${maxIt ?? "?"}` }, dot, { text: elapsed }]];
  return [
    first,
    [
      { text: iteration },
      ...(attempt ? [dot, { text: `attempt ${attempt}/${r.maxRetries ?? st?.max_retries ?? "?"}` }] : []),
      dot,
      { text: `elapsed ${elapsed}` },
      dot,
      ...money,
    ],
  ];
}

/** Tokens and cost of this run, and the budget when there is one (it counts the earlier runs this loop continues). */
function spending(m: LoopScreen, st: State | null): Span[] {
  const tokens = Math.max(m.record.loop.tokens, st?.total_tokens ?? 0);
  const cost = Math.max(m.record.loop.cost, st?.total_cost_usd ?? 0);
  const before = st?.spent_before;
  // No cost reported (Codex, Gemini, a command) reads '-', as in every other view; against a budget, $0.00 of it.
  const shown = st?.max_cost_usd ? formatCost(cost) : formatTotalCost(cost);
  const out: Span[] = [{ text: `${formatTokens(tokens)} tokens` }, { text: " · ", tone: "dim" }, { text: shown }];
  if (st?.max_cost_usd)
    out.push({ text: ` of ${formatCost(st.max_cost_usd)}${before?.cost_usd ? ` (${formatCost(before.cost_usd)} before)` : ""}`, tone: "dim" });
  if (st?.max_tokens) out.push({ text: ` · budget ${formatTokens(st.max_tokens)} tokens`, tone: "dim" });
  return out;
}

/** The most rows the result's banner takes; the rest is cut (`r` shows all of it). */
const BANNER_ROWS = 3;
const END_TONE: Record<string, Tone> = { done: "good", stopped: "warn" };

/** After the end: the result (how the loop ended, what the completion did), wrapped to the width, as the header's last rows. */
export function bannerLines(m: LoopScreen): Line[] {
  if (!m.end) return [];
  const status = m.st?.status ?? m.record.loop.complete?.status ?? "";
  const tone = END_TONE[status] ?? "bad";
  const rows = wrap([{ text: `■ ${m.end.message.replace(/\n+/g, " ")}`, tone, bold: true }], Math.max(1, m.cols));
  if (rows.length <= BANNER_ROWS) return rows;
  const last = rows[BANNER_ROWS - 1]!;
  return [...rows.slice(0, BANNER_ROWS - 1), [{ ...last[0]!, text: fit(last.map((x) => x.text).join(""), Math.max(1, m.cols)).trimEnd() }]];
}

const NOTICE_MS = 8000;

function footer(m: LoopScreen, now: number): Line {
  if (m.notice) {
    m.noticeAt ??= now;
    if (now - m.noticeAt < NOTICE_MS) return [{ text: cut(m.notice.text, m.cols), tone: m.notice.tone }];
    [m.notice, m.noticeAt] = [null, null];
  }
  const files: [string, number][] = m.tabName === "Files" ? [["Enter diff", 7]] : [];
  if (m.end) {
    const hints: [string, number][] = [
      ["↑/↓ story", 6],
      ["Tab tab", 5],
      ["PgUp/PgDn scroll", 3],
      ["/ find", 2],
      ...files,
      ["r result", 6],
      ["q leave", 9],
      ["? keys", 8],
    ];
    return [{ text: hintLine(hints, m.cols), tone: "dim" }];
  }
  const quit: [string, number][] =
    m.o.mode === "run"
      ? [["q stop", 9]]
      : [
          ["q leave", 9],
          ["s stop", 8],
        ];
  const hints: [string, number][] = [
    ["↑/↓ story", 6],
    ...(m.chosen ? [["f follow", 5] as [string, number]] : []),
    ["Tab tab", 5],
    ["PgUp/PgDn scroll", 3],
    ["/ find", 1],
    ...files,
    [m.st?.status === "paused" ? "p resume" : "p pause", 4],
    ["+/- max", 2],
    ["n note", 2],
    ...quit,
    ["? keys", 8],
  ];
  return [{ text: hintLine(hints, m.cols), tone: "dim" }];
}
