/**
 * The preview of a piece of work, before any token is spent: its stories and boxes, the change's
 * requirements and scenarios, and the exact prompt its first unfinished story would get. Pure: the
 * data comes from select-data.ts `loadPreview`.
 */
import { isComplete } from "../stories/story.ts";
import { afterLabel, graphRefusal } from "../parallel/graph.ts";
import type { Requirement } from "../stories/requirements.ts";
import type { Action, Frame, Key, Line, ScreenModel, Tone } from "./frame.ts";
import { storyCount, taskCount, type PreviewData } from "./select-data.ts";
import { bodySize, layoutFor } from "./geometry.ts";
import { hintLine, span, textLines, windowOf, wrap, wrapOverlay } from "./text.ts";
import { TextScreen } from "./text-screen.ts";

export const PREVIEW_TABS = ["Tasks", "Scenarios", "Prompt"] as const;

export const PREVIEW_KEYS: [string, string][] = [
  ["Tab  Shift-Tab", "next / previous tab (Tasks, Scenarios, Prompt)"],
  ["↑ ↓  k j", "scroll a line"],
  ["PgUp PgDn", "scroll a page"],
  ["Home End", "top / bottom"],
  ["R", "run the loop here: this terminal becomes its loop screen"],
  ["S", "start it in a new window, as `wt-loop start`"],
  ["Esc", "back to the selection"],
  ["?", "this help"],
  ["q  Ctrl-C", "quit"],
];

const HEADER_ROWS = 2;

export class PreviewModel extends TextScreen implements ScreenModel {
  private tab = 0;
  private tops = [0, 0, 0];

  constructor(private readonly data: PreviewData) {
    super();
  }

  get id(): string {
    return this.data.item.name;
  }

  key(k: Key): Action | null {
    const taken = this.overlayKey(k);
    if (taken !== undefined) return taken;
    const page = Math.max(1, this.bodyRows() - 1);
    const scroll = (by: number) => {
      this.tops[this.tab] = Math.max(0, this.tops[this.tab]! + by);
    };
    switch (k) {
      case "tab":
        this.tab = (this.tab + 1) % PREVIEW_TABS.length;
        return null;
      case "shift-tab":
        this.tab = (this.tab + PREVIEW_TABS.length - 1) % PREVIEW_TABS.length;
        return null;
      case "1":
      case "2":
      case "3":
        this.tab = Number(k) - 1;
        return null;
      case "up":
      case "k":
        scroll(-1);
        return null;
      case "down":
      case "j":
        scroll(1);
        return null;
      case "wheelup":
        scroll(-3);
        return null;
      case "wheeldown":
        scroll(3);
        return null;
      case "pageup":
        scroll(-page);
        return null;
      case "pagedown":
      case " ":
        scroll(page);
        return null;
      case "home":
        this.tops[this.tab] = 0;
        return null;
      case "end":
        this.tops[this.tab] = Number.MAX_SAFE_INTEGER;
        return null;
      case "?":
        return this.showKeys(PREVIEW_KEYS, 16);
      case "R":
        return { kind: "run", id: this.id };
      case "S":
        return { kind: "start", id: this.id };
      case "escape":
        return { kind: "back" };
      case "q":
      case "ctrl-c":
        return { kind: "quit", code: 0 };
    }
    return null;
  }

  private layout(): Frame["layout"] {
    return layoutFor(this.cols, this.rows, "full");
  }

  private body(): { cols: number; rows: number } {
    const b = bodySize(this.layout(), this.cols, this.rows, HEADER_ROWS);
    return { cols: Math.max(1, b.cols), rows: Math.max(1, b.rows) };
  }

  private bodyRows(): number {
    return this.body().rows;
  }

  frame(_now: number): Frame {
    const { item, requirements } = this.data;
    const s = storyCount(item.stories);
    const t = taskCount(item.stories);
    const scenarios = requirements.reduce((n, r) => n + r.scenarios.length, 0);
    const body = this.tabLines().flatMap((l) => wrap(l, this.body().cols));
    const win = windowOf(body, this.tops[this.tab]!, this.bodyRows());
    this.tops[this.tab] = win.top;
    return {
      layout: this.layout(),
      header: [
        [span(item.kind === "change" ? "Change " : "Tasks file ", "dim"), span(item.name, "accent", true)],
        [
          span(
            `tasks ${t.done}/${t.total} · stories ${s.done}/${s.total}` +
              `${item.kind === "change" ? ` · ${scenarios} ${scenarios === 1 ? "scenario" : "scenarios"}` : ""}`,
          ),
        ],
      ],
      // The compact layout shows the list's selected row: what is previewed.
      list: { title: "Preview", rows: [{ glyph: "◆", tone: "accent", title: item.name, detail: `${t.done}/${t.total}`, selected: true }], gauge: t },
      tabs: PREVIEW_TABS.map((title, i) => ({ title, active: i === this.tab })),
      body: win,
      footer: this.message ?? [
        span(
          hintLine(
            [
              ["Tab tabs", 4],
              ["↑↓ PgUp PgDn scroll", 3],
              ["R run here", 8],
              ["S new window", 7],
              ["Esc back", 6],
              ["? keys", 6],
              ["q quit", 9],
            ],
            this.cols,
          ),
          "dim",
        ),
      ],
      overlay: wrapOverlay(this.overlay, this.cols),
    };
  }

  private tabLines(): Line[] {
    switch (PREVIEW_TABS[this.tab]) {
      case "Tasks":
        return this.tasks();
      case "Scenarios":
        return this.scenarios();
      default:
        return this.prompt();
    }
  }

  private tasks(): Line[] {
    const { stories, name, kind } = this.data.item;
    // A start would refuse these: said before the stories, not discovered at `R`.
    const unmet = graphRefusal(stories, kind === "change" ? `openspec/changes/${name}/tasks.md` : name);
    const lines: Line[] = unmet ? unmet.split("\n").map((l) => [span(l, "warn")]) : [];
    for (const story of stories) {
      const done = isComplete(story);
      const n = story.tasks.filter((x) => x.done).length;
      const after = afterLabel(story);
      if (lines.length) lines.push([]);
      lines.push([
        span(done ? "✓ " : "· ", done ? "good" : "dim"),
        span(`${story.id}. ${story.title}`, "normal", true),
        span(`  ${n}/${story.tasks.length}`, "dim"),
        ...(after ? [span(`  ${after}`, "accent")] : []),
      ]);
      for (const task of story.tasks)
        lines.push([span(task.done ? "  [x] " : "  [ ] ", task.done ? "good" : "normal"), span(task.text, task.done ? "dim" : "normal")]);
    }
    return lines.length ? lines : [[span("No stories yet: its tasks.md has no `- [ ]` boxes under `## ` headings.", "warn")]];
  }

  private scenarios(): Line[] {
    if (this.data.item.kind !== "change")
      return [[span("A plain tasks.md has no scenarios: requirements and scenarios come with an OpenSpec change's spec deltas.", "dim")]];
    if (!this.data.requirements.length)
      return [[span(`This change has no spec deltas yet (openspec/changes/${this.data.item.name}/specs/<capability>/spec.md).`, "dim")]];
    return this.data.requirements.flatMap((r, i) => [...(i ? [[]] : []), ...requirementLines(r)]);
  }

  private prompt(): Line[] {
    const note: Line[] = this.data.promptNote ? [[span(this.data.promptNote, this.data.prompt ? "dim" : "warn")], ...(this.data.prompt ? [[]] : [])] : [];
    return [...note, ...(this.data.prompt ? textLines(this.data.prompt.trimEnd()) : [])];
  }
}

function requirementLines(r: Requirement): Line[] {
  const lines: Line[] = [[span(`${r.operation || "?"} `, "dim"), span(`Requirement: ${r.name}`, "normal", true), span(`  (${r.capability})`, "dim")]];
  for (const t of r.text) lines.push([span(`  ${t}`)]);
  for (const sc of r.scenarios) {
    lines.push([span(`  Scenario: ${sc.name}`, "accent")]);
    for (const l of sc.lines) {
      // `- **WHEN** text` → WHEN in bold, the rest plain.
      const m = /^[-*]\s*\*\*(GIVEN|WHEN|THEN|AND|BUT)\*\*\s*(.*)$/i.exec(l);
      lines.push(m ? [span(`    ${m[1]!.toUpperCase().padEnd(5)} `, "normal", true), span(m[2]!)] : [span(`    ${l}`)]);
    }
  }
  return lines;
}
