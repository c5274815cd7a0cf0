// How long the loop waits for an unavailable agent: until the reset time it gave plus a margin,
// else an exponential backoff from 30 s to 15 min; WT_LOOP_WAIT_SCALE scales backoff and margin.
import { expect, test } from "bun:test";
import { unavailable } from "../../../src/agents/adapter.ts";
import { waitScale, waitUntil } from "../../../src/engine/gates/unavailable.ts";

const NOW = Date.parse("2026-11-23T10:00:00Z");

test.each([
  [1, 30_000],
  [2, 60_000],
  [3, 120_000],
  [5, 480_000],
  [6, 900_000], // 16 min capped at 15
  [20, 900_000],
])("no reset time: run %i in a row waits %i ms", (runs, ms) => {
  expect(waitUntil(unavailable("overloaded"), runs, NOW, 1) - NOW).toBe(ms);
});

test("a reset time ahead is waited for, plus the margin; one already past falls back to the backoff", () => {
  expect(waitUntil(unavailable("limit", new Date(NOW + 3_600_000)), 4, NOW, 1) - NOW).toBe(3_600_000 + 15_000);
  expect(waitUntil(unavailable("limit", new Date(NOW - 60_000)), 1, NOW, 1) - NOW).toBe(30_000);
});

test("the scale shrinks backoff and margin, never the reset time itself", () => {
  expect(waitUntil(unavailable("x"), 1, NOW, 0.001) - NOW).toBe(30);
  expect(waitUntil(unavailable("x", new Date(NOW + 5000)), 1, NOW, 0.001) - NOW).toBe(5015);
  expect([waitScale({ WT_LOOP_WAIT_SCALE: "0.01" }), waitScale({}), waitScale({ WT_LOOP_WAIT_SCALE: "-1" }), waitScale({ WT_LOOP_WAIT_SCALE: "x" })]).toEqual([
    0.01, 1, 1, 1,
  ]);
});
