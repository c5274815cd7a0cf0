// `history` formats three numbers a row for 500 rows at start-up, in the interpreter: formatDuration and
// formatTokens were rewritten without padStart and a regular expression. They must say what they said,
// character for character: the references are the two as they were at 775262e.
import { describe, expect, test } from "bun:test";
import { formatDuration, formatTokens } from "../../src/text/format.ts";
import { seeded } from "../helpers/seeded.ts";

function durationBefore(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, "0")}m`;
}

const tokensBefore = (n: number) => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ",") : n.toLocaleString("en-US"));

const EDGES = [
  0,
  -0,
  0.4,
  0.5,
  1,
  -1,
  499,
  500,
  999,
  1000,
  1001,
  9999,
  59_499,
  59_500,
  60_000,
  60_499.999,
  599_999,
  3_599_499,
  3_599_500,
  3_600_000,
  36_000_000,
  86_400_000 * 400,
  999_999,
  1_000_000,
  -999_999,
  -1_000_000,
  -1234,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  2 ** 60,
  1e21,
  1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  12.5,
  1234.5678,
  // Rounding halves, and where formatDuration's `| 0` stops (2^31 seconds, 2^31 minutes).
  1500,
  2500,
  0.49999999999999994 * 1000,
  499.99999999999994,
  2 ** 31 * 1000 - 500,
  2 ** 31 * 1000 - 501,
  2 ** 31 * 1000,
  2 ** 31 * 1000 + 499,
  2 ** 31 * 60_000,
  2 ** 31 * 60_000 - 1000,
  2 ** 31 * 60_000 + 1000,
  2 ** 53,
  2 ** 53 * 1000,
];

// Values of every size: integers and fractions, both signs, near each power of ten and of sixty.
function values(): number[] {
  const next = seeded(31);
  const out = [...EDGES];
  for (let k = 0; k < 20_000; k++) {
    const scale = 10 ** Math.floor(next() * 17);
    const v = next() * scale;
    const x = k % 3 ? Math.floor(v) : v;
    out.push(x, -x, x + 1, x - 1);
  }
  for (let p = 0; p < 16; p++) for (const d of [-1, 0, 1]) out.push(10 ** p + d, 60 ** (p % 6) * 1000 + d, 500 + 1000 * 60 ** (p % 5) + d);
  return out;
}

describe("number formats", () => {
  test("formatDuration says what it said, on ~80,000 values and the edges", () => {
    for (const v of values()) expect(formatDuration(v)).toBe(durationBefore(v));
    // What a state that slipped past its types could hold: not a number, so "-", as before.
    for (const v of [null, undefined, "5", "60000", true, [], {}]) expect(formatDuration(v as never)).toBe(durationBefore(v as never));
  });

  test("formatTokens says what it said, on ~80,000 values and the edges", () => {
    for (const v of values()) expect(formatTokens(v)).toBe(tokensBefore(v));
  });
});
