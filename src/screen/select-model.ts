/**
 * The selection screen (`wt-loop` on a terminal, in a worktree): the work this worktree could loop
 * on — its OpenSpec changes with unfinished tasks and a plain tasks.md — and the loops of every
 * worktree of the repository. Pure: data in (select-data.ts reads it), a Frame and Actions out.
 */
import { statusLabel, storyLabel } from "../fleet/table.ts";
import type { LoopSummary, WorktreeLoop } from "../fleet/loops.ts";
import { runTimeMs } from "../state/run-time.ts";
import { isComplete } from "../stories/story.ts";
import { formatCost, formatDuration } from "../text/format.ts";
import type { Action, Frame, Key, Line, ListRow, ScreenModel, Tone } from "./frame.ts";
import { storyCount, taskCount, type SelectionData, type WorkItem } from "./select-data.ts";
import { bodySize, layoutFor } from "./geometry.ts";
import { fit, hintLine, span, windowOf, wrap, wrapOverlay } from "./text.ts";
import { cells, cut } from "../text/width.ts";
import { TextScreen } from "./text-screen.ts";

type Entry = { kind: "work"; item: WorkItem } | { kind: "loop"; loop: WorktreeLoop };

export const EMPTY_HINT =
  'No OpenSpec change with unfinished tasks here, and no tasks.md: `wt-loop start "task"` runs a task given in words; ' +
  "an OpenSpec change (openspec/changes/NAME/tasks.md) or a tasks.md with `## ` stories and `- [ ]` boxes gives the loop its stories.";

export const EMPTY_SHORT = 'No OpenSpec change with unfinished tasks here: `wt-loop start "task"` runs a task given in words.';

export const SELECT_KEYS: [string, string][] = [
  ["↑ ↓  k j", "select"],
  ["Enter", "a change or tasks file: its preview (then R runs it here, S in a new window); a loop: follow it, as `wt-loop monitor`"],
  ["PgUp PgDn", "scroll the details"],
  ["?", "this help"],
  ["q  Ctrl-C", "quit"],
];

const LOOP_GLYPH: Record<LoopSummary["status"], [string, Tone]> = {
  starting: ["▶", "accent"],
  running: ["▶", "accent"],
  paused: ["⏸", "warn"],
  done: ["✓", "good"],
  stuck: ["‼", "bad"],
  stalled: ["‼", "warn"],
  stopped: ["■", "dim"],
};

export class SelectModel extends TextScreen implements ScreenModel {
  private selected = 0;
  private top = 0;

  constructor(private data: SelectionData) {
    super();
  }

  private get entries(): Entry[] {
    return [...this.data.work.map((item) => ({ kind: "work", item }) as const), ...this.data.loops.map((loop) => ({ kind: "loop", loop }) as const)];
  }

  /** New data (a refresh): the selection stays on the same change or worktree when it is still there. */
  update(data: SelectionData): void {
    const key = keyOf(this.entries[this.selected]);
    this.data = data;
    const i = this.entries.findIndex((e) => keyOf(e) === key);
    this.selected = i >= 0 ? i : Math.min(this.selected, Math.max(0, this.entries.length - 1));
  }

  /** The piece of work named `id` as last read. */
  workItem(id: string): WorkItem | undefined {
    return this.data.work.find((w) => w.name === id);
  }

  /** The loops as last read. */
  loops(): WorktreeLoop[] {
    return this.data.loops;
  }

  /** The loops as they stand now (a refresh while the screen is open). */
  updateLoops(loops: WorktreeLoop[]): void {
    this.update({ ...this.data, loops });
  }

  key(k: Key): Action | null {
    const taken = this.overlayKey(k);
    if (taken !== undefined) return taken;
    const n = this.entries.length;
    const move = (to: number) => {
      this.selected = Math.max(0, Math.min(n - 1, to));
      this.top = 0;
    };
    switch (k) {
      case "up":
      case "k":
        move(this.selected - 1);
        return null;
      case "down":
      case "j":
        move(this.selected + 1);
        return null;
      case "home":
        move(0);
        return null;
      case "end":
        move(n - 1);
        return null;
      case "pageup":
      case "wheelup":
        this.top = Math.max(0, this.top - (k === "pageup" ? this.bodyRows() - 1 : 3));
        return null;
      case "pagedown":
      case "wheeldown":
        this.top += k === "pagedown" ? this.bodyRows() - 1 : 3;
        return null;
      case "?":
        return this.showKeys(SELECT_KEYS, 12);
      case "q":
      case "ctrl-c":
        return { kind: "quit", code: 0 };
      case "enter":
        return this.open();
    }
    return null;
  }

  private open(): Action | null {
    const e = this.entries[this.selected];
    if (!e) return null;
    if (e.kind === "work") return { kind: "preview", id: e.item.name };
    if (e.loop.problem) {
      this.say(`${e.loop.name}: its state cannot be read (${e.loop.problem}).`, "warn");
      return null;
    }
    return { kind: "attach", worktree: e.loop.worktree };
  }

  private layout(): Frame["layout"] {
    return layoutFor(this.cols, this.rows, "split");
  }

  private bodyRows(): number {
    return Math.max(1, bodySize(this.layout(), this.cols, this.rows, HEADER_ROWS).rows);
  }

  private bodyCols(): number {
    return Math.max(1, bodySize(this.layout(), this.cols, this.rows, HEADER_ROWS).cols);
  }

  frame(now: number): Frame {
    const entries = this.entries;
    const rows: ListRow[] = entries.map((e, i) => ({ ...rowOf(e), selected: i === this.selected }));
    const e = entries[this.selected];
    // What could not be read is said in full under any entry's details (the footer has room for its start only).
    const warnings: Line[] = e && this.data.warnings.length ? [[], ...this.data.warnings.map((w) => [span(`⚠ ${w}`, "warn")])] : [];
    const details = e ? (e.kind === "work" ? workDetails(e.item) : loopDetails(e.loop, now)) : emptyDetails(this.data);
    const body = [...details, ...warnings].flatMap((l) => wrap(l, this.bodyCols()));
    const win = windowOf(body, this.top, this.bodyRows());
    this.top = win.top;
    const work = this.data.work.length;
    const running = this.data.loops.filter((l) => l.loop?.runner_alive).length;
    return {
      layout: this.layout(),
      header: [
        [span("wt-loop", "accent", true), span(`  ${this.data.worktree.name}`, "normal", true), span(`  ${this.data.worktree.path}`, "dim")],
        work === 0
          ? [span(EMPTY_SHORT, "warn")]
          : [
              span(
                `${work === 1 ? "1 piece" : `${work} pieces`} of work here · ` +
                  `${this.data.loops.length} ${this.data.loops.length === 1 ? "loop" : "loops"} in this repository${running ? ` (${running} running)` : ""}`,
                "dim",
              ),
            ],
      ],
      list: { title: "Work and loops", rows, gauge: null },
      tabs: [{ title: e?.kind === "loop" ? "Loop" : "Details", active: true }],
      body: win,
      footer: this.message ?? this.hints(),
      overlay: wrapOverlay(this.overlay, this.cols),
    };
  }

  /** The keys first, then what could not be read (the details say all of it): a warning never hides the keys. */
  private hints(): Line {
    const keys = hintLine(
      [
        ["↑↓ select", 5],
        ["Enter open", 6],
        ["? keys", 7],
        ["q quit", 8],
      ],
      this.cols,
    );
    const warning = this.data.warnings[0];
    const room = this.cols - cells(keys) - 3;
    return warning && room > 8 ? [span(keys, "dim"), span(" · ", "dim"), span(cut(`⚠ ${warning}`, room), "warn")] : [span(keys, "dim")];
  }
}

const HEADER_ROWS = 2;

const keyOf = (e: Entry | undefined) => (!e ? "" : e.kind === "work" ? `work:${e.item.name}` : `loop:${e.loop.worktree}`);

function rowOf(e: Entry): Omit<ListRow, "selected"> {
  if (e.kind === "work") {
    const t = taskCount(e.item.stories);
    return { glyph: e.item.kind === "change" ? "◆" : "☐", tone: "accent", title: e.item.name, detail: `${t.done}/${t.total}` };
  }
  const l = e.loop;
  // The worktree's name, as `list` shows it: a loop's branch is its checkpoint branch while it runs.
  const name = l.name;
  if (!l.loop) return { glyph: "?", tone: "warn", title: name, detail: "unreadable" };
  const [glyph, tone] = l.loop.runner_alive ? (["▶", "accent"] as [string, Tone]) : LOOP_GLYPH[l.loop.status];
  return { glyph, tone, title: name, detail: l.loop.status };
}

function workDetails(item: WorkItem): Line[] {
  const s = storyCount(item.stories);
  const t = taskCount(item.stories);
  const lines: Line[] = [
    [span(item.kind === "change" ? "OpenSpec change " : "Tasks file ", "dim"), span(item.name, "normal", true)],
    [span(`Stories ${s.done}/${s.total} · tasks ${t.done}/${t.total}`)],
    [],
  ];
  for (const story of item.stories) {
    const done = story.tasks.filter((x) => x.done).length;
    lines.push([
      span(isComplete(story) ? "✓ " : "· ", isComplete(story) ? "good" : "dim"),
      span(`${story.id}. ${story.title}`),
      span(`  ${done}/${story.tasks.length}`, "dim"),
    ]);
  }
  if (!item.stories.length) lines.push([span("No stories: no `- [ ]` boxes in its tasks.md yet.", "warn")]);
  lines.push([], [span("Enter: preview its tasks, scenarios and first prompt; R there runs it here, S in a new window.", "dim")]);
  return lines;
}

function loopDetails(e: WorktreeLoop, now: number): Line[] {
  const head: Line = [
    span("Loop in ", "dim"),
    span(e.name, "normal", true),
    span(e.branch ? `  on ${e.branch}` : "  (detached)", "dim"),
    span(e.current ? "  (this worktree)" : "", "dim"),
  ];
  if (!e.loop) return [head, [span(e.worktree, "dim")], [], [span(`Its state cannot be read: ${e.problem ?? "unknown"}`, "warn")]];
  const l = e.loop;
  const elapsed = runTimeMs({ status: l.status, started_at: l.started_at, ended_at: l.ended_at }, now);
  const row = (k: string, v: string, tone: Tone = "normal"): Line => [span(fit(k, 11), "dim"), span(v, tone)];
  const lines: Line[] = [
    head,
    [span(e.worktree, "dim")],
    [],
    row("Status", statusLabel(l), l.runner_alive ? "accent" : l.status === "done" ? "good" : l.status === "stuck" ? "bad" : "normal"),
    row(
      "Story",
      `${storyLabel(l)}${
        l.lanes.length
          ? `  ${l.lanes.map((x) => `${x.story_id}. ${x.story_title}`).join(" · ")}`
          : l.story
            ? `  ${l.story.id}. ${l.story.title} (attempt ${l.story.attempt})`
            : ""
      }`,
    ),
    row("Iteration", `${l.iteration}/${l.max_iterations}`),
    row("Elapsed", elapsed === null ? "unknown" : formatDuration(elapsed)),
    row("Cost", formatCost(l.total_cost_usd)),
    row("Runner", l.runner_pid === null ? "-" : `${l.runner_alive ? "alive" : "gone"} (pid ${l.runner_pid})`),
  ];
  if (l.change) lines.push(row("Change", l.change));
  if (l.reason) lines.push(row("Reason", l.reason));
  if (e.note) lines.push([], [span(e.note, "warn")]);
  lines.push(
    [],
    [
      span(
        l.runner_alive
          ? "Enter: follow it here, as `wt-loop monitor` (q there leaves; the loop goes on)."
          : "Enter: look through its stories, as `wt-loop monitor`.",
        "dim",
      ),
    ],
  );
  return lines;
}

function emptyDetails(d: SelectionData): Line[] {
  return [[span(EMPTY_HINT)], ...d.warnings.map((w) => [span(w, "warn")])];
}
