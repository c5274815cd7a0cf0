/**
 * The loop screen's view model (`run` and `monitor` on a terminal): the run's events and state in, a
 * Frame and Actions out. It knows nothing of the terminal; the renderer draws what `frame` returns and
 * names the keys it reads. What it shows of the agent's messages is read from the event log by window
 * (story-record.ts), so a run of any size costs what is on screen plus an index.
 */
import type { LoopEvent } from "../record/events.ts";
import type { LogRange, LogReader } from "../record/event-log.ts";
import type { FinalStatus, State } from "../state/schema.ts";
import type { Action, Clock, Frame, Key, ScreenModel, Tone } from "./frame.ts";
import { bodySize, layoutFor } from "./geometry.ts";
import { bannerLines, clockParts, composeFrame, HEADER_ROWS, limitLines } from "./loop-frame.ts";
import { LIMIT_STEP, overlayKey } from "./loop-overlays.ts";
import type { Ended, LoopModelOptions, LoopScreen, Overlay } from "./loop-screen.ts";
import { attemptsOf, buildTab, pickedAt, tabStamp, TABS, type TabName } from "./loop-tabs.ts";
import { StoryRecord, type StoryEntry } from "./story-record.ts";
import { BlockList, shown } from "./text-blocks.ts";
import { plural } from "../text/format.ts";

/** Rows the wheel scrolls per notch. */
const WHEEL = 3;
/** How often a file a tab shows (tasks, verify log, prompt) is looked at for a change. */
const RESTAT_MS = 500;

export type { LoopModelOptions } from "./loop-screen.ts";

export class LoopModel implements ScreenModel, LoopScreen {
  readonly record: StoryRecord;
  cols = 80;
  rows = 24;
  st: State | null = null;
  /** The story the user chose; null while the running one is followed. */
  chosen: string | null = null;
  tab = 0;
  /** The Agent tab's rows when the view stopped following: rows past them are new output below. */
  seen = 0;
  /** The last `/` search, repeated by an empty one. */
  searched: string | null = null;
  /** Files, Verify and Prompt: the attempt shown, by its place among the tab's attempts; null: the latest (a new one is shown as it comes). */
  pick: number | null = null;
  top = 0;
  follow = true;
  overlay: Overlay | null = null;
  /** The loop is over: the result's banner; the screen stays browsable until `q`. */
  end: Ended | null = null;
  notice: { text: string; tone: Tone } | null = null;
  /** When the notice was first drawn: it shows for a while, then the key hints come back. */
  noticeAt: number | null = null;
  private built: { key: string; list: BlockList } | null = null;
  private stamped = { at: 0, stamp: "" };

  constructor(readonly o: LoopModelOptions) {
    this.record = new StoryRecord({ events: o.events, since: o.since, fed: o.fed });
  }

  // ── fed by the View ──────────────────────────────────────────────────────────

  /**
   * A loop event. Without an event log it is kept here; fed (run), the record takes it once logged (`logged`);
   * else (monitor) the record reads it from the log at the next frame.
   */
  event(e: LoopEvent): void {
    if (!this.o.events) this.record.apply(e);
    // monitor: the runner says it paused or resumed before the state file's next re-read (up to a second
    // later): `p` must already send the other request, and the header and footer say so. (run: the state
    // is the runner's own, changed before the event is told.)
    if (this.o.mode === "monitor" && this.st && (e.type === "Paused" || e.type === "Resumed"))
      this.st = { ...this.st, status: e.type === "Paused" ? "paused" : "running" };
  }

  /** run: the event as the store appended it, with its line's place in the log (null: not in it) and what reads it back. */
  logged(e: LoopEvent, at: LogRange | null, log?: LogReader): void {
    if (this.o.events && this.o.fed) this.record.fed(e, at, log);
  }

  /**
   * The plan as `run` read it (its LoopStarted), listed at once: before the loop is written (the starting
   * screen) and until the loop announces it in the event log (the same stories).
   */
  plan(e: LoopEvent): void {
    this.record.apply(e);
  }

  /** The state (run: the runner's own; monitor: as last written): the header's status, limits, budget and notes. */
  state(s: State): void {
    this.st = s;
  }

  /** A message from wt-loop (stopping, a force-quit, how a followed loop ended): the footer shows it. */
  say(message: string, tone: Tone = "warn"): void {
    [this.notice, this.noticeAt] = [{ text: shown(message).replace(/\n/g, " "), tone }, null];
  }

  warn(message: string): void {
    this.say(message, "bad");
  }

  /** The end dialog: keep or clean up the loop's branch, with the run's summary. Answered by an `answer` action. */
  ask(status: FinalStatus, offerPr = false): void {
    this.overlay = { kind: "ask", status, choice: 0, offerPr };
    this.notice = null; // the loop is over: a "stopping" message would outlive what it said
  }

  /** The question was answered elsewhere (`wt-loop stop`): the dialog goes. */
  closeAsk(): void {
    if (this.overlay?.kind === "ask") this.overlay = null;
  }

  /** Text to read over the screen (a file's diff): scrolled with the keys, Esc closes it. */
  showText(title: string, text: string): void {
    this.overlay = { kind: "text", title: shown(title).replace(/\n/g, " "), text: shown(text), top: 0 };
  }

  /**
   * The loop is over: its result becomes the banner and everything stays browsable (stories, tabs,
   * attempts); `q`, Esc or Ctrl-C asks to quit with `code`, `r` shows the summary and receipt.
   */
  ended(code: number, message?: string): void {
    this.end = { code, message: shown(message ?? `Loop ${this.record.loop.complete?.status ?? this.st?.status ?? "over"}`) };
    this.notice = null; // the banner says how it ended: a "stopping" message in the footer would outlive what it said
    if (this.overlay?.kind === "ask" || this.overlay?.kind === "input" || this.overlay?.kind === "confirm-stop") this.overlay = null;
  }

  // ── ScreenModel ──────────────────────────────────────────────────────────────

  resize(cols: number, rows: number): void {
    [this.cols, this.rows] = [Math.max(1, cols), Math.max(1, rows)];
  }

  key(k: Key): Action | null {
    // The completion question is answered by Ctrl-C too (keep): the loop is over, there is nothing to stop.
    if (k === "ctrl-c" && this.overlay?.kind === "ask") return overlayKey(this, k);
    if (this.end && (k === "ctrl-c" || (!this.overlay && (k === "q" || k === "escape")))) return { kind: "quit", code: this.end.code };
    // monitor: Ctrl-C leaves with 130, as the line stream's monitor and a shell report an interrupt.
    if (k === "ctrl-c") return this.o.mode === "run" ? { kind: "stop", key: k } : { kind: "leave", code: 130 };
    if (this.overlay) return overlayKey(this, k);
    // Over: nothing left to steer or stop.
    if (this.end && "ps+=-n".includes(k) && k.length === 1) return null;
    this.record.sync(); // what the key selects or scrolls is what the log holds now
    const size = this.bodySize();
    switch (k) {
      case "q":
        return this.o.mode === "run" ? { kind: "stop", key: k } : { kind: "leave", code: 0 };
      case "s":
        if (this.o.mode === "monitor") this.overlay = { kind: "confirm-stop" };
        return null;
      case "?":
        this.overlay = { kind: "help" };
        return null;
      case "r":
        if (this.end) this.overlay = { kind: "result" };
        return null;
      case "up":
      case "k":
      case "down":
      case "j":
        return this.select(k === "up" || k === "k" ? -1 : 1);
      case "f":
        this.chosen = null;
        return this.resetScroll();
      case "tab":
      case "shift-tab":
        this.tab = (this.tab + (k === "tab" ? 1 : TABS.length - 1)) % TABS.length;
        return this.resetScroll();
      case "1":
      case "2":
      case "3":
      case "4":
      case "5":
        this.tab = Number(k) - 1;
        return this.resetScroll();
      case "[":
      case "left":
      case "]":
      case "right":
        return this.pickAttempt(k === "[" || k === "left" ? -1 : 1);
      case "pageup":
        return this.scrollBy(-Math.max(1, size.rows - 1));
      case "pagedown":
        return this.scrollBy(Math.max(1, size.rows - 1));
      case "wheelup":
        return this.scrollBy(-WHEEL);
      case "wheeldown":
        return this.scrollBy(WHEEL);
      // The story list's ends, as in lazygit and k9s. Home and End stay the text's: a 10 MB Agent tab needs them.
      case "g":
        return this.selectAt(0);
      case "G":
        return this.selectAt(this.record.stories.length - 1);
      case "home":
        if (this.follow) this.seen = this.content(Date.now()).rows(Math.max(1, this.bodySize().cols));
        [this.top, this.follow] = [0, false];
        return null;
      case "end":
        this.follow = true;
        return null;
      case "/":
        this.overlay = { kind: "search", text: "" };
        return null;
      case "p":
        return this.st?.status === "paused" ? { kind: "resume" } : { kind: "pause" };
      case "+":
      case "=":
        return { kind: "max", delta: LIMIT_STEP };
      case "-":
        return { kind: "max", delta: -LIMIT_STEP };
      case "n":
        this.overlay = { kind: "input", text: "" };
        return null;
      case "enter":
        return this.openFiles();
      default:
        return null;
    }
  }

  frame(now: number): Frame {
    this.record.sync();
    return composeFrame(this, now);
  }

  /**
   * The 1 s tick while nothing else came: the header and footer alone, unless the event log grew (its lines are
   * read here, as a frame would) or a tab other than Agent is shown (it watches its file by looking at it).
   */
  clock(now: number): Clock | null {
    if (this.record.sync() || this.tabName !== "Agent") return null;
    return clockParts(this, now);
  }

  // ── used by the frame and the overlays ──────────────────────────────────────

  get tabName(): TabName {
    return TABS[this.tab]!;
  }

  get layout(): Frame["layout"] {
    return layoutFor(this.cols, this.rows, "split");
  }

  bodySize(): { cols: number; rows: number } {
    return bodySize(this.layout, this.cols, this.rows, this.headerRows());
  }

  headerRows(): number {
    return HEADER_ROWS[this.layout] + limitLines(this).length + bannerLines(this).length;
  }

  /** The story shown: the one chosen, else the running (or next) one. */
  selected(): StoryEntry | null {
    const r = this.record;
    if (this.chosen) return r.stories.find((s) => s.id === this.chosen) ?? null;
    const current = r.loop.current ? r.stories.find((s) => s.id === r.loop.current) : undefined;
    return current ?? r.stories.find((s) => s.status !== "done") ?? r.stories[0] ?? null;
  }

  /** The note the next prompt carries, if the state has one (`wt-loop note`, `n`). */
  note(): string | null {
    const notes = (this.st as { notes?: { text: string }[] } | null)?.notes ?? [];
    return notes.length ? notes.map((n) => n.text).join("\n\n") : null;
  }

  /** The active tab's text, at the body's width. */
  content(now: number): BlockList {
    const s = this.selected();
    const tab = this.tabName;
    if (tab === "Agent") return s?.agent ?? new BlockList();
    if (now - this.stamped.at >= RESTAT_MS || !this.built) this.stamped = { at: now, stamp: tabStamp(tab, s, this.record.loop.tasksFile) };
    const attempts = s?.attempts.map((a) => `${a.outcome}:${a.verify}:${a.files.length}:${a.diffFile}`).join(",") ?? "";
    const key = [tab, s?.id, attempts, this.pick, this.stamped.stamp, this.note()].join("|");
    if (this.built?.key !== key) this.built = { key, list: buildTab(tab, s, { tasksFile: this.record.loop.tasksFile, note: this.note(), pick: this.pick }) };
    return this.built.list;
  }

  private select(step: number): null {
    const list = this.record.stories;
    if (!list.length) return null;
    return this.selectAt(list.indexOf(this.selected()!) + step);
  }

  private selectAt(at: number): null {
    const list = this.record.stories;
    if (!list.length) return null;
    this.chosen = list[Math.max(0, Math.min(list.length - 1, at))]!.id;
    return this.resetScroll();
  }

  /**
   * `/`: the Agent tab scrolled to the next line holding `query` (any case) after the top row, from the start again
   * past the end; the footer says what was found. An empty query repeats the last.
   */
  search(query: string): void {
    const q = query || this.searched || "";
    if (!q) return;
    this.searched = q;
    this.tab = 0; // the Agent tab
    const width = Math.max(1, this.bodySize().cols);
    const list = this.content(Date.now());
    const from = this.follow ? -1 : this.top;
    const row = list.find(q, width, from) ?? list.find(q, width, -1);
    // The verdict and the keys first, the query last: the footer is one row, cut at its width.
    if (row === null) return this.say(`Not in this story's Agent tab: “${q}”`, "dim");
    [this.top, this.follow] = [row, false];
    this.seen = list.rows(width);
    this.say(`/ Enter finds the next: “${q}”`, "dim");
  }

  /** Files, Verify and Prompt: the previous or next attempt; past the latest, the latest is followed again. */
  private pickAttempt(step: number): null {
    const n = attemptsOf(this.tabName, this.selected()).length;
    if (n < 2) return null;
    const at = pickedAt(n, this.pick) + step;
    this.pick = at >= n - 1 ? null : Math.max(0, at);
    this.top = 0;
    this.follow = this.tabName === "Verify";
    return null;
  }

  /** A new story or tab starts at its tail (Agent, Verify: the latest) or its top (the others), at the latest attempt. */
  private resetScroll(): null {
    this.built = null;
    this.pick = null;
    this.top = 0;
    this.follow = this.tabName === "Agent" || this.tabName === "Verify";
    return null;
  }

  private scrollBy(rows: number): null {
    const size = this.bodySize();
    const total = this.content(Date.now()).rows(Math.max(1, size.cols));
    const max = Math.max(0, total - size.rows);
    const from = this.follow ? max : Math.min(this.top, max);
    if (this.follow) this.seen = total; // what was there when the view stopped following: more is "new output below"
    this.top = Math.max(0, Math.min(max, from + rows));
    // At the bottom, the view follows the tail again.
    this.follow = this.top >= max;
    return null;
  }

  /** Files tab, Enter: the diff the attempt shown made (every file it changed, one after the other). */
  private openFiles(): Action | null {
    const s = this.selected();
    if (this.tabName !== "Files" || !s?.attempts.length) return null;
    const a = s.attempts[pickedAt(s.attempts.length, this.pick)]!;
    if (!a.diffFile) {
      if (!a.outcome) this.say("This attempt is still running: its diff is recorded when it ends.", "dim");
      else this.say(a.files.length ? "No diff was recorded for this attempt." : "This attempt changed no file.", "dim");
      return null;
    }
    return { kind: "diff", title: `story ${s.id} · attempt ${a.attempt} · ${plural(a.files.length, "file")}`, file: a.diffFile };
  }
}
