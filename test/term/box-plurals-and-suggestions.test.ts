// The final box fits the terminal it is drawn in, words agree with their numbers, a missing cost reads
// "-", and typos find the word that was meant.
import { describe, expect, test } from "bun:test";
import type { CompleteEvent } from "../../src/record/events.ts";
import { formatTotalCost, plural, truncate } from "../../src/text/format.ts";
import { boxWidth, renderEvent } from "../../src/term/render.ts";
import { distance, nearest } from "../../src/text/suggest.ts";
import { historyRows } from "../../src/term/history-view.ts";
import type { Iteration } from "../../src/state/schema.ts";

const complete = (o: Partial<CompleteEvent> = {}): CompleteEvent => ({
  type: "Complete",
  status: "done",
  stories_completed: 1,
  stories_total: 1,
  iterations: 1,
  total_tokens: 1,
  total_cost_usd: 0,
  duration_ms: 1000,
  branch: "main",
  completion: "cleanup",
  reason: "All 1 story is complete. Cleaned up: the work of the loop's branch ralph/a-rather-long-change-name is now uncommitted on main, ready to review.",
  ...o,
});

describe("the final box", () => {
  test.each([60, 80, 120, 200])("at %i columns no line is wider than the terminal", (width) => {
    const lines = renderEvent(complete(), { color: false, width });
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
  });

  test("at 200 columns a long reason stays on one line (no fixed 100-column wrap); at 60 it wraps", () => {
    const wide = renderEvent(complete(), { color: false, width: 200 });
    expect(wide.some((l) => l.includes(complete().reason))).toBe(true);
    const narrow = renderEvent(complete(), { color: false, width: 60 });
    expect(narrow.filter((l) => l.startsWith("│")).length).toBeGreaterThan(wide.filter((l) => l.startsWith("│")).length);
  });

  // Measured in the terminal's columns (text/width.ts), as the receipt's rows inside it are cut: a reason or
  // a story title in CJK (two columns a character) or with an emoji keeps the right border where the others have it.
  test("wide characters: every line of the box is as wide as its border, and none wider than the terminal", () => {
    const reason = `${"日本語の理由を書きます。".repeat(8)} 🚀 done`;
    const stories = [
      {
        id: "1",
        title: "中文标题：一个相当长的故事名称",
        attempts: 1,
        complete: true,
        duration_ms: 1000,
        waited_ms: 0,
        agent: { tokens: 1, cost_usd: null },
        reviewer: { tokens: 0, cost_usd: null },
      },
    ];
    for (const width of [60, 80, 120]) {
      const lines = renderEvent(complete({ reason, stories } as Partial<CompleteEvent>), { color: false, width }).filter(Boolean);
      const widths = new Set(lines.map((l) => Bun.stringWidth(l)));
      expect(widths.size).toBe(1);
      expect([...widths][0]!).toBeLessThanOrEqual(width);
      expect(lines.join("\n")).toContain("中文标题");
    }
  });

  test("the width follows the terminal, within 60–200 columns, 80 when not a terminal", () => {
    expect(boxWidth({ isTTY: true, columns: 150 })).toBe(150);
    expect(boxWidth({ isTTY: true, columns: 40 })).toBe(60);
    expect(boxWidth({ isTTY: true, columns: 400 })).toBe(200);
    expect(boxWidth({ isTTY: false })).toBe(80);
  });

  test("singular and plural, '-' for a loop that reported no cost, and cleanup advice that shows new files", () => {
    const one = renderEvent(complete(), { color: false, width: 200 }).join("\n");
    expect(one).toContain("1/1 story complete · 1 iteration · 1 token · - · 1s");
    const many = renderEvent(complete({ stories_total: 3, stories_completed: 2, iterations: 4, total_tokens: 1200, total_cost_usd: 0.5 }), {
      color: false,
      width: 200,
    }).join("\n");
    expect(many).toContain("2/3 stories complete · 4 iterations · 1,200 tokens · $0.50");
    expect(one).toContain("`git status`");
  });

  test("an iteration's summary: 1 commit, 1 turn", () => {
    const [line] = renderEvent(
      {
        type: "IterationEnd",
        story_id: "1",
        iteration: 1,
        outcome: "complete",
        reason: null,
        duration_ms: 0,
        turns: 1,
        tokens: { input: 1, output: 0, cache_read: 0, cache_creation: 0 },
        cost_usd: null,
        commits: ["a"],
        files: [],
      },
      { color: false },
    );
    expect(line).toContain("1 turn · 1 token ·");
    expect(line).toContain("· 1 commit");
    expect(line).not.toContain("commit(s)");
  });

  test.each([
    [1, "iteration", "1 iteration"],
    [0, "iteration", "0 iterations"],
    [2, "commit", "2 commits"],
    [1, "story", "1 story"],
    [1500, "token", "1,500 tokens"],
  ] as const)("plural(%p, %p) = %p", (n, noun, want) => {
    expect(plural(n, noun, noun === "story" ? "stories" : undefined)).toBe(want);
  });

  test("costs: 0 reported as a total is '-', any spend is dollars", () => {
    expect(formatTotalCost(0)).toBe("-");
    expect(formatTotalCost(1.234)).toBe("$1.23");
  });
});

describe("history rows", () => {
  const it = (n: number, reason: string | null): Iteration => ({
    n,
    started: "2026-11-23T07:50:01.000Z",
    ended: "2026-11-23T07:51:01.000Z",
    done_check: false,
    commits: [],
    tokens_used: 10,
    story_id: "1",
    story_title: "t",
    attempt: n,
    outcome: reason ? "failed" : "complete",
    reason,
    progress: true,
    tokens: { input: 10, output: 0, cache_read: 0, cache_creation: 0 },
    cost_usd: null,
    turns: 1,
    exit_code: 0,
    log_file: "x",
  });
  test("carry the date and time and the failure's reason, cut to the width", () => {
    const long = "the tests fail because the fixture server is not started before the suite runs and every request is refused";
    const rows = historyRows([it(1, long), it(2, null)], 100);
    expect(rows[0]).toContain("started (UTC)");
    expect(rows[1]).toContain("2026-11-23 07:50:01");
    for (const r of rows) expect(r.length).toBeLessThanOrEqual(100);
    expect(rows[1]!.endsWith("…")).toBe(true);
    expect(historyRows([it(1, long)]).join("\n")).toContain(long);
    expect(truncate("abcdef", 4)).toBe("abc…");
  });
});

describe("suggestions", () => {
  test.each([
    ["strat", ["start", "status", "stop"], "start"],
    ["mx", ["max", "max-retries", "model"], "max"],
    ["stauts", ["start", "status"], "status"],
    ["moniter", ["monitor", "log"], "monitor"],
    ["iter", ["iteration-timeout", "max"], "iteration-timeout"],
    ["xyz", ["start", "status"], null],
    ["q", ["start", "run"], null],
  ] as const)("nearest(%p) = %p", (word, candidates, want) => {
    expect(nearest(word, candidates)).toBe(want);
  });

  test("a swap of two letters costs one edit", () => {
    expect(distance("strat", "start")).toBe(1);
    expect(distance("", "abc")).toBe(3);
  });
});
