// An iteration's duration is parsed once a process for the readers that read it again (history's totals and
// rows, the seed's reader that just parsed its times); the receipt reads each iteration once and keeps nothing.
import { describe, expect, test } from "bun:test";
import { iterationMs, iterationMsOnce, knownIterationsMs } from "../../src/state/run-time.ts";

const times = [
  ["2026-11-21T10:00:00.000Z", "2026-11-21T10:01:00.500Z"],
  ["2026-11-21T23:59:59Z", "2026-11-22T00:00:01+01:00"],
  ["2026-02-28T10:00:00.000Z", "2026-03-01T10:00:00.000Z"],
  ["2026-11-21T10:05:00.000Z", "2026-11-21T10:00:00.000Z"],
  ["not a time", "2026-11-21T10:00:00.000Z"],
];

describe("iterationMsOnce", () => {
  test("is iterationMs, for times, times out of order and times that are not", () => {
    for (const [started, ended] of times)
      expect(iterationMsOnce({ started: started!, ended: ended! })).toEqual(iterationMs({ started: started!, ended: ended! }));
  });

  test("uses a figure already known, and keeps none of its own", () => {
    const seeded = { started: times[0]![0]!, ended: times[0]![1]! };
    knownIterationsMs([seeded], [7]);
    expect(iterationMsOnce(seeded)).toBe(7);
    seeded.ended = times[2]![1]!; // replaced: parsed again
    expect(iterationMsOnce(seeded)).toBe(Date.parse(seeded.ended) - Date.parse(seeded.started));
    // Kept by iterationMs, not by iterationMsOnce: a figure recorded under it would be what iterationMs answers.
    const it = { started: times[0]![0]!, ended: times[0]![1]! };
    iterationMsOnce(it);
    const parse = Date.parse;
    let parsed = 0;
    Date.parse = (s: string) => (parsed++, parse(s));
    try {
      iterationMs(it);
      iterationMs(it);
    } finally {
      Date.parse = parse;
    }
    expect(parsed).toBe(2);
  });
});
