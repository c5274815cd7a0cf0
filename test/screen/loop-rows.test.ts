// The story list keeps its titles readable: a story's figures (attempts, tokens, cost) give way to its
// title — shortened, then dropped — where the list pane is narrow (80 columns), and all show at 120.
import { describe, expect, test } from "bun:test";
import type { LoopEvent } from "../../src/record/events.ts";
import { figures, shortTokens } from "../../src/screen/loop-frame.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";

const TOKENS = { input: 90_000, output: 33_456, cache_read: 0, cache_creation: 0 };
const TITLES = ["Parse the configuration file and report every bad key", "Cost meter", "Stream the agent's messages into the loop screen"];

function model(cols: number): LoopModel {
  const m = new LoopModel({ mode: "run" });
  const ev = (e: object) => m.event(e as LoopEvent);
  ev({
    type: "LoopStarted",
    worktree: "repo",
    change: null,
    tasks_file: null,
    done_criteria: "tasks",
    checkpoint: "branch",
    max_iterations: 30,
    max_retries: 3,
    verify: null,
    stories: TITLES.map((title, i) => ({ id: String(i + 1), title, tasks: 1, done: 0 })),
  });
  TITLES.forEach((title, i) => {
    const id = String(i + 1);
    for (const attempt of [1, 2]) {
      ev({
        type: "StoryProgress",
        story_id: id,
        title,
        index: i + 1,
        total: 3,
        completed: i,
        iteration: i * 2 + attempt,
        max_iterations: 30,
        attempt,
        max_retries: 3,
        worktree: "repo",
      });
      ev({
        type: "IterationEnd",
        story_id: id,
        iteration: i * 2 + attempt,
        outcome: attempt === 2 ? "complete" : "failed",
        reason: null,
        duration_ms: 1000,
        turns: 3,
        tokens: TOKENS,
        cost_usd: 1.25,
        commits: [],
        files: [],
      });
    }
  });
  m.resize(cols, 30);
  return m;
}

const rowsAt = (cols: number) => model(cols).frame(Date.now()).list.rows;

describe("story rows: the title first, then the figures that fit", () => {
  test("at 120 columns every story shows its whole title (up to 24 columns) beside its attempts and cost; a short title keeps every figure", () => {
    const rows = rowsAt(120);
    expect(rows.map((r) => r.title)).toEqual(TITLES.map((t, i) => `${i + 1}. ${t}`));
    expect(rows[1]!.detail).toBe("×2 246,912 $2.50"); // "2. Cost meter": room for all of it
    for (const r of [rows[0]!, rows[2]!]) {
      expect(r.detail).toMatch(/^×2( 247k)? \$2\.50$/);
      const room = 40 - 2 - 3; // the pane at 120 columns, less its borders, the mark and the glyph
      expect(room - Bun.stringWidth(r.detail) - 1).toBeGreaterThanOrEqual(24);
    }
  });

  test("at 80 columns a long title takes the row and its figures go; a short title keeps what fits", () => {
    const rows = rowsAt(80);
    const room = 26 - 2 - 3;
    for (const r of rows) {
      const titleRoom = room - (r.detail ? Bun.stringWidth(r.detail) + 1 : 0);
      expect(titleRoom).toBeGreaterThanOrEqual(Math.min(Bun.stringWidth(r.title), room));
    }
    expect(rows[0]!.detail).toBe(""); // a long title: the figures gave way
    expect(rows[1]!.detail).toBe("×2"); // "2. Cost meter" (13 columns) whole, beside what fits of 21
  });

  test("figures give way in order: tokens shortened, then dropped, then the cost, then the attempts", () => {
    const s = { attempts: [{}, {}] as never[], tokens: 1_234_567, cost: 0.5 };
    expect(figures(s, "x", 40)).toBe("×2 1,234,567 $0.50");
    expect(figures(s, "x".repeat(10), 25)).toBe("×2 1.2M $0.50");
    expect(figures(s, "x".repeat(10), 20)).toBe("×2 $0.50");
    expect(figures(s, "x".repeat(10), 14)).toBe("×2");
    expect(figures(s, "x".repeat(10), 12)).toBe("");
    expect(figures(s, "x", 0)).toBe("");
    expect([shortTokens(999), shortTokens(1000), shortTokens(12_345), shortTokens(2_500_000)]).toEqual(["999", "1k", "12k", "2.5M"]);
  });
});
