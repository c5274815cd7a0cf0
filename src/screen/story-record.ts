/**
 * What the loop screen knows of a run, built from its logged events as they come (`run`: handed over by its
 * store in memory, each with its place in the log; `monitor`: read from the event log, from the run's start): each planned story's status, attempts,
 * tokens and cost, and per attempt its outcome, reason, changed files, verify log and prompt file.
 * An agent's messages are not held: each is a block that knows its byte range in the event log and
 * the widths of its lines (text-blocks.ts), and is read back only while it is on screen.
 */
import type { ChangedFile } from "../checkpoint/changed-files.ts";
import { assertNever } from "../errors.ts";
import type { CompleteEvent, Logged, LoopEvent } from "../record/events.ts";
import type { LogRange, LogReader } from "../record/event-log.ts";
import { auditSaid, reviewSaid, unavailableSaid, verifySaid } from "../record/said.ts";
import type { Outcome } from "../state/schema.ts";
import { sumTokens } from "../state/tokens.ts";
import { inertLine } from "../term/inert.ts";
import { formatCost, formatDuration, formatTokens, plural } from "../text/format.ts";
import { LogTail, readRange } from "./log-tail.ts";
import { block, BlockList, shown } from "./text-blocks.ts";

export type StoryStatus = "done" | "running" | "pending" | "failed" | "stuck";

export interface AttemptRecord {
  iteration: number;
  attempt: number;
  outcome: Outcome | null;
  reason: string | null;
  files: ChangedFile[];
  /** The attempt's diff, written once its work was kept, or before it was reverted; null: none (no file changed, not measured, an older log). */
  diffFile: string | null;
  verifyLog: string | null;
  verify: "running" | "passed" | "failed" | null;
  promptFile: string | null;
  tokens: number;
  cost: number | null;
}

/** An attempt just begun: nothing known of it yet but where it stands and the prompt it was given. */
const begun = (iteration: number, attempt: number, promptFile: string | null): AttemptRecord => ({
  iteration,
  attempt,
  outcome: null,
  reason: null,
  files: [],
  diffFile: null,
  verifyLog: null,
  verify: null,
  promptFile,
  tokens: 0,
  cost: null,
});

export interface StoryEntry {
  id: string;
  title: string;
  status: StoryStatus;
  attempts: AttemptRecord[];
  tokens: number;
  cost: number | null;
  /** The Agent tab: every attempt's messages and tool calls, separated by attempt. */
  agent: BlockList;
}

export interface LoopFacts {
  worktree: string | null;
  change: string | null;
  tasksFile: string | null;
  maxIterations: number | null;
  maxRetries: number | null;
  iteration: number;
  current: string | null;
  waiting: { until: number; reason: string } | null;
  tokens: number;
  cost: number;
  complete: CompleteEvent | null;
  /** The first event's time: the run's start when no state says it. */
  since: number | null;
}

/** The audit's entry among the stories: not a story id (ids are numbers or `[a-z0-9-]` slugs). */
export const AUDIT_ENTRY = "(audit)";

const FAILED: Record<Outcome, boolean> = {
  complete: false,
  stopped: false,
  rejected: true,
  failed: true,
  no_signal: true,
  timeout: true,
  unavailable: true,
};

export class StoryRecord {
  stories: StoryEntry[] = [];
  loop!: LoopFacts;
  /** Bumped on every change: views rebuild what depends on the record only when it moved. */
  version = 0;
  private byId = new Map<string, StoryEntry>();
  private tail: LogTail | null;
  /** Fed: where the last logged line ended, and whether the messages read so far are still where they were. */
  private logEnd = 0;
  private live = { ok: true };
  /** Fed: the runner's log itself, read back by range (its name may be gone a while: a `git clean`); else by the name. */
  private reader: LogReader | null = null;

  /**
   * `events`: the run's event log, read by `sync` (messages stay on disk); `fed` (run): not followed, the events come
   * through `fed` with their places in it; without a log, `apply` keeps their text. `since`: the run's `started_at`.
   */
  constructor(readonly o: { events?: string; since?: string; fed?: boolean } = {}) {
    this.tail = o.events && !o.fed ? new LogTail(o.events) : null;
    this.reset();
  }

  /**
   * run: an event as the store appended it, `at` its line in the log (null: not written, its text is kept). A line
   * that starts before the last one ended: the log was made again, empty (a `git clean` on a system without
   * /proc/self/fd, record/event-log.ts) — what was read from it so far is gone, and is said so, not read from
   * whatever now stands at its offsets. The stories stay: the screen holds them, not the file.
   */
  fed(e: LoopEvent, at: LogRange | null, log?: LogReader): void {
    if (log) this.reader = log;
    if (at && at.start < this.logEnd) {
      this.live.ok = false;
      this.live = { ok: true };
    }
    if (at) this.logEnd = at.end;
    this.apply(e, at ?? undefined);
  }

  private reset(): void {
    [this.stories, this.byId] = [[], new Map()];
    this.loop = {
      worktree: null,
      change: null,
      tasksFile: null,
      maxIterations: null,
      maxRetries: null,
      iteration: 0,
      current: null,
      waiting: null,
      tokens: 0,
      cost: 0,
      complete: null,
      since: null,
    };
    this.version++;
  }

  /** Reads what the event log gained; whether anything changed. */
  sync(): boolean {
    if (!this.tail) return false;
    const before = this.version;
    for (const l of this.tail.read()) {
      if (l.start < 0) {
        this.reset();
        continue;
      }
      const e = readEvent(l.text);
      if (!e || (this.o.since && e.ts < this.o.since)) continue; // a torn line, or an earlier run's
      this.apply(e, { start: l.start, end: l.end });
    }
    return this.version !== before;
  }

  story(id: string): StoryEntry {
    let s = this.byId.get(id);
    if (!s) {
      s = { id, title: "", status: "pending", attempts: [], tokens: 0, cost: null, agent: new BlockList() };
      this.byId.set(id, s);
      // The audit's entry stays last: a story its gaps became comes after it in time, but before it in the list.
      const audit = this.stories.findIndex((x) => x.id === AUDIT_ENTRY);
      if (audit >= 0 && id !== AUDIT_ENTRY) this.stories.splice(audit, 0, s);
      else this.stories.push(s);
    }
    return s;
  }

  /** The attempt running (or last run) of the story. */
  private attemptOf(s: StoryEntry, iteration?: number): AttemptRecord | null {
    return (iteration === undefined ? s.attempts.at(-1) : s.attempts.findLast((a) => a.iteration === iteration)) ?? null;
  }

  apply(e: LoopEvent | Logged, at?: { start: number; end: number }): void {
    this.version++;
    const L = this.loop;
    if ("ts" in e && L.since === null) L.since = Date.parse(e.ts);
    switch (e.type) {
      case "LoopStarted":
        Object.assign(L, { worktree: e.worktree, change: e.change, tasksFile: e.tasks_file, maxIterations: e.max_iterations, maxRetries: e.max_retries });
        for (const p of e.stories) {
          const s = this.story(p.id);
          s.title = inertLine(p.title);
          if (p.tasks > 0 && p.done === p.tasks && s.status === "pending") s.status = "done";
        }
        return;
      case "StoryProgress": {
        const s = this.story(e.story_id);
        s.title = inertLine(e.title);
        Object.assign(L, {
          worktree: e.worktree,
          iteration: e.iteration,
          maxIterations: e.max_iterations,
          maxRetries: e.max_retries,
          current: e.story_id,
          waiting: null,
        });
        s.status = "running";
        s.attempts.push(begun(e.iteration, e.attempt, e.prompt_file ?? null));
        s.agent.push(block(`── attempt ${e.attempt}/${e.max_retries} · iteration ${e.iteration}/${e.max_iterations} ──`, "accent", { bold: true }));
        return;
      }
      case "StoryEvent":
        return this.agentEvent(this.story(e.story_id), e.event, at);
      case "IterationEnd": {
        const s = this.story(e.story_id);
        const a = this.attemptOf(s, e.iteration);
        const tokens = sumTokens(e.tokens);
        if (a) Object.assign(a, { outcome: e.outcome, reason: e.reason, files: e.files, diffFile: e.diff_file ?? null, tokens, cost: e.cost_usd });
        s.tokens += tokens;
        if (e.cost_usd !== null) s.cost = (s.cost ?? 0) + e.cost_usd;
        L.tokens += tokens;
        L.cost += e.cost_usd ?? 0;
        const outOfAttempts = a !== null && L.maxRetries !== null && a.attempt >= L.maxRetries;
        s.status = e.outcome === "complete" ? "done" : e.outcome === "stopped" ? "pending" : outOfAttempts ? "stuck" : "failed";
        const facts = [
          e.turns !== null ? plural(e.turns, "turn") : null,
          `${formatTokens(tokens)} tokens`,
          e.cost_usd !== null ? formatCost(e.cost_usd) : null,
          formatDuration(e.duration_ms),
        ];
        const tone = e.outcome === "complete" ? "good" : FAILED[e.outcome] ? "bad" : "dim";
        s.agent.push(block(`◆ ${e.outcome} · ${facts.filter(Boolean).join(" · ")}`, tone, { bold: true }));
        if (e.reason) s.agent.push(block(shown(`  reason: ${e.reason}`), tone));
        return;
      }
      case "VerifyStart": {
        const s = this.story(e.story_id);
        const a = this.attemptOf(s, e.iteration);
        if (a) Object.assign(a, { verifyLog: e.log_file, verify: "running" });
        s.agent.push(block(`▸ verify: ${inertLine(e.command)}`, "accent"));
        return;
      }
      case "VerifyEnd": {
        const s = this.story(e.story_id);
        const a = this.attemptOf(s, e.iteration);
        if (a) Object.assign(a, { verifyLog: e.log_file, verify: e.passed ? "passed" : "failed" });
        s.agent.push(block(`◆ verify ${verifySaid(e)} · ${formatDuration(e.duration_ms)}`, e.passed ? "good" : "bad"));
        return;
      }
      case "ReviewStart":
        this.story(e.story_id).agent.push(block(`▸ review by ${inertLine(e.reviewer)}${e.run > 1 ? ` (run ${e.run})` : ""}`, "accent"));
        return;
      case "ReviewEvent":
        return; // the reviewer's own doings are in its log (`wt-loop log`), not in the agent's pane
      case "ReviewEnd": {
        const s = this.story(e.story_id);
        s.agent.push(block(`◆ review ${reviewSaid(e.verdict)} · ${formatDuration(e.duration_ms)}`, e.verdict === "approve" ? "good" : "bad"));
        if (e.reason) s.agent.push(block(shown(`  ${e.verdict === "changes" ? "changes" : "reason"}: ${e.reason}`), "bad"));
        return;
      }
      // --audit: its own entry in the list, after the stories, with its rounds as attempts.
      case "AuditStart": {
        const s = this.story(AUDIT_ENTRY);
        s.title = "Audit of the whole change";
        Object.assign(L, { iteration: e.iteration, current: AUDIT_ENTRY, waiting: null });
        s.status = "running";
        if (e.run === 1) {
          s.attempts.push(begun(e.iteration, e.round, null));
          s.agent.push(
            block(`── audit round ${e.round} · iteration ${e.iteration}${L.maxIterations ? `/${L.maxIterations}` : ""} ──`, "accent", { bold: true }),
          );
        } else s.agent.push(block(`▸ audit run ${e.run} (the first gave no verdict)`, "accent"));
        return;
      }
      case "AuditEvent":
        return this.agentEvent(this.story(AUDIT_ENTRY), e.event, at);
      case "AuditEnd": {
        const s = this.story(AUDIT_ENTRY);
        const said = auditSaid(e);
        const tone = e.verdict === "pass" ? "good" : e.verdict === "stopped" ? "dim" : "bad";
        s.agent.push(block(`◆ audit ${said} · ${formatDuration(e.duration_ms)}`, tone, { bold: true }));
        for (const g of e.gaps) s.agent.push(block(shown(`  gap: ${g}`), "bad"));
        if (e.reason) s.agent.push(block(shown(`  reason: ${e.reason}`), tone));
        if (!e.final) return;
        const a = this.attemptOf(s, e.iteration);
        const tokens = sumTokens(e.tokens);
        if (a) Object.assign(a, { tokens, cost: e.cost_usd });
        s.tokens += tokens;
        if (e.cost_usd !== null) s.cost = (s.cost ?? 0) + e.cost_usd;
        L.tokens += tokens;
        L.cost += e.cost_usd ?? 0;
        const outcome: Outcome =
          e.verdict === "pass"
            ? "complete"
            : e.verdict === "gaps"
              ? "rejected"
              : e.verdict === "stopped"
                ? "stopped"
                : e.verdict === "unavailable"
                  ? "unavailable"
                  : "no_signal";
        if (a) Object.assign(a, { outcome, reason: e.gaps.length ? e.gaps.join("; ") : e.reason });
        s.status = e.verdict === "pass" ? "done" : e.verdict === "stopped" ? "pending" : "failed";
        return;
      }
      case "Error":
        if (L.current) this.story(L.current).agent.push(block(shown(`✖ ${e.message}`), "bad"));
        return;
      case "Watching": {
        const what = e.checks.length ? `pull request #${e.pull_request}: ${e.checks.join(", ")}` : `pull request #${e.pull_request}'s checks`;
        L.waiting = { until: Date.parse(e.until), reason: inertLine(what) };
        if (L.current) this.story(L.current).agent.push(block(shown(`⏳ Watching ${what} (--watch)`), "warn"));
        return;
      }
      case "Feedback":
        L.waiting = null;
        if (L.current) this.story(L.current).agent.push(block(shown(`↩ ${e.note}`), "warn"));
        return;
      case "Waiting":
        L.waiting = { until: Date.parse(e.until), reason: inertLine(e.reason) };
        this.story(e.story_id).agent.push(block(shown(`⏸ The agent is unavailable: ${e.reason}`), "warn"));
        return;
      // Steering (wt-loop pause|resume|max|note): said where the running story's messages are.
      case "Paused":
      case "Resumed":
      case "MaxIterationsChanged":
      case "NoteAdded":
      case "NotesUsed":
        if (L.current) this.story(L.current).agent.push(block(shown(steerLine(e)), e.type === "NotesUsed" ? "dim" : "accent"));
        return;
      case "Lane": {
        // --parallel: said in the lane's own story
        const s = this.story(e.story_id);
        s.agent.push(
          block(
            shown(`⑂ lane ${e.step.replace("_", " ")}${e.reason ? `: ${e.reason}` : ""}`),
            e.step === "conflict" || e.step === "verify_failed" ? "bad" : "dim",
          ),
        );
        s.status = laneStatus(e, s.status, L.maxRetries);
        return;
      }
      case "Complete":
        L.complete = e;
        L.waiting = null;
        // The story the loop ended on, when it ended stuck on it: out of attempts, or stalled.
        if ((e.status === "stuck" || e.status === "stalled") && L.current) {
          const s = this.story(L.current);
          if (s.status !== "done") s.status = "stuck";
        }
        for (const s of this.stories) if (s.status === "running") s.status = "pending";
        return;
      default:
        return assertNever(e);
    }
  }

  private agentEvent(s: StoryEntry, ev: Extract<LoopEvent, { type: "StoryEvent" }>["event"], at?: { start: number; end: number }): void {
    switch (ev.type) {
      case "Message": {
        const [path, live, reader] = [this.o.events, this.live, this.reader];
        // From the log: only where it is. Read back as the event it is, and its text taken out.
        const load = path && at ? () => (live.ok ? messageText(reader?.readBack(at) ?? readRange(path, at.start, at.end)) : GONE) : undefined;
        // Fed (run), a spilled message came with its head only: the log holds the whole of it, read once here
        // to count its lines (as a follower reads it from the log), then let go.
        const text = this.o.fed && load && ev.spilled ? load() : ev.text;
        s.agent.push(block(shown(text), "normal", { load }));
        return;
      }
      case "ToolUse":
        return s.agent.push(block(inertLine(`▸ ${ev.name}${ev.summary ? ` ${ev.summary}` : ""}`), "dim"));
      case "Done":
        if (ev.is_error && ev.errors.length) s.agent.push(block(shown(`agent error: ${ev.errors.join("; ")}`), "bad"));
        return;
      case "ApiRetry":
        return s.agent.push(block(inertLine(`↻ API ${ev.status ?? ""} ${ev.error}: the agent retries`), "dim"));
      case "Unavailable":
        return s.agent.push(block(shown(unavailableSaid(ev)), "bad"));
      default:
        return assertNever(ev);
    }
  }
}

/**
 * A story in a lane is at work until its commits are integrated (accepted in the lane is not done yet);
 * an integration undone (a conflict, verify failing on the integrated tree) is a failed attempt.
 */
function laneStatus(e: Extract<LoopEvent, { type: "Lane" }>, was: StoryStatus, maxRetries: number | null): StoryStatus {
  switch (e.step) {
    case "opened":
    case "queued":
    case "integrating":
      return "running";
    case "integrated":
      return "done";
    case "conflict":
    case "verify_failed":
      return maxRetries !== null && e.attempt >= maxRetries ? "stuck" : "failed";
    case "closed":
      return was;
    default:
      return assertNever(e.step);
  }
}

/**
 * One line of the log as an event. The agent's messages and tool calls are most of a log and all of a
 * burst: their shape is checked here by hand, at a fifth of the schema's cost (measured); every other
 * event goes through the schema.
 */
function readEvent(line: string): Logged | null {
  let o: { ts?: unknown; type?: unknown; story_id?: unknown; event?: { type?: unknown; text?: unknown; name?: unknown; summary?: unknown } };
  try {
    o = JSON.parse(line);
  } catch {
    return null;
  }
  const ev = o?.type === "StoryEvent" && typeof o.ts === "string" && typeof o.story_id === "string" ? o.event : undefined;
  if (ev?.type === "Message" && typeof ev.text === "string") return o as Logged;
  if (ev?.type === "ToolUse" && typeof ev.name === "string" && typeof ev.summary === "string") return o as Logged;
  const r = loggedEvent().safeParse(o);
  return r.success ? r.data : null;
}

/**
 * The events' schema, built at the first line that needs it rather than with the screen: `run`'s first
 * frame reads no log, and building the events' zod schemas (~19M instructions, a quarter of the zod
 * modules' loading) no longer comes before it (issue 35). `require`: a line is read synchronously; the
 * bundle then evaluates events.ts on first use (everything else that imports it still loads it first).
 */
let schema: typeof import("../record/events.ts").LoggedEvent | null = null;
const loggedEvent = () => (schema ??= (require("../record/events.ts") as typeof import("../record/events.ts")).LoggedEvent);

const GONE = "(this message is no longer in the event log)";

function messageText(line: string): string {
  const e = readEvent(line);
  return e?.type === "StoryEvent" && e.event.type === "Message" ? e.event.text : GONE;
}

type SteerEvent = Extract<LoopEvent, { type: "Paused" | "Resumed" | "MaxIterationsChanged" | "NoteAdded" | "NotesUsed" }>;

function steerLine(e: SteerEvent): string {
  switch (e.type) {
    case "Paused":
      return `⏸ Paused after iteration ${e.iteration}`;
    case "Resumed":
      return "▶ Resumed";
    case "MaxIterationsChanged":
      return `◆ Iteration limit ${e.from} → ${e.to}`;
    case "NoteAdded":
      return `✎ Note for the next iteration: ${e.text}`;
    case "NotesUsed":
      return `Iteration ${e.iteration}'s prompt carries: ${e.notes.join(" · ")}`;
    default:
      return assertNever(e);
  }
}
