// `history` of a loop whose iterations ran side by side in lanes (`--parallel`): the state records them
// as they end, the table reads in the order they began, and the total says the time they took once.
import { describe, expect, test } from "bun:test";
import { totalsOf, wallMs } from "../../src/record/totals.ts";
import { historyRows, totalsLine } from "../../src/term/history-view.ts";
import { sampleIteration } from "../helpers/state.ts";

const at = (m: number, s = 0) => `2026-11-21T10:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.000Z`;
// Recorded as they ended: 3 (10:02–10:04), 1 (10:00–10:05), 2 (10:01–10:06).
const overlapping = [
  sampleIteration(3, { story_id: "3", started: at(2), ended: at(4), outcome: "complete" }),
  sampleIteration(1, { story_id: "1", started: at(0), ended: at(5), outcome: "complete" }),
  sampleIteration(2, { story_id: "2", started: at(1), ended: at(6) }),
];
const sequential = [sampleIteration(1, { started: at(0), ended: at(1) }), sampleIteration(2, { started: at(1), ended: at(3) })];

describe("history of iterations that overlapped", () => {
  test("rows in the order the iterations began, each with its own story", () => {
    const rows = historyRows(overlapping)
      .slice(1)
      .map((r) => r.split(/\s+/).slice(0, 2));
    expect(rows).toEqual([
      ["1", "1"],
      ["2", "2"],
      ["3", "3"],
    ]);
  });

  test("the total with lanes: the time they took once, and the sum of iterations beside it", () => {
    const t = totalsOf(overlapping);
    expect([t.duration_ms, wallMs(overlapping)]).toEqual([12 * 60_000, 6 * 60_000]);
    expect(totalsLine(t, wallMs(overlapping))).toStartWith("Total: 3 iterations · 6m 00s (12m 00s of iterations side by side) · ");
  });

  test("one after another the two are the same, and the line reads as before", () => {
    expect(wallMs(sequential)).toBe(3 * 60_000);
    expect(totalsLine(totalsOf(sequential), wallMs(sequential))).toStartWith("Total: 2 iterations · 3m 00s · ");
    expect(totalsLine(totalsOf(overlapping))).toStartWith("Total: 3 iterations · 12m 00s · ");
  });
});
