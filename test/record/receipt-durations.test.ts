// The receipt sums each story's durations: with the figures the seed's reader kept when there are any, else parsed
// where it sums them (a call an iteration is compiled at `status`'s start-up). Both ways must give the same receipt,
// for times that are times, out of order, with offsets, and not times. A process that has kept no figure yet is a
// fresh one: the receipt is made in a child process first, then here after every figure is kept.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { receiptOf } from "../../src/record/receipt.ts";
import { iterationMs, knownIterationsMs } from "../../src/state/run-time.ts";
import type { State } from "../../src/state/schema.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";
import { seeded } from "../helpers/seeded.ts";

const TIMES = [
  "2026-11-21T10:00:00.000Z",
  "2026-11-21T10:01:05.250Z",
  "2026-11-21T09:00:00Z",
  "2026-11-22T10:00:00+01:00",
  "2026-02-29T10:00:00.000Z",
  "not a time",
];
const RECEIPT = join(import.meta.dir, "../../src/record/receipt.ts");
const RUN_TIME = join(import.meta.dir, "../../src/state/run-time.ts");

function states(): State[] {
  const r = seeded(35);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: 60 }, () =>
    sampleState({
      status: pick(["running", "done"] as const),
      stories_total: 4,
      iterations: Array.from({ length: Math.floor(r() * 40) }, (_, k) =>
        sampleIteration(k + 1, { story_id: pick(["1", "2", "3", null]), started: pick(TIMES), ended: pick(TIMES), cost_usd: r() < 0.3 ? null : 0.5 }),
      ),
    }),
  );
}

describe("the receipt's durations", () => {
  test("are the same parsed where summed (a fresh process) and from the figures kept", async () => {
    const all = states();
    const child = Bun.spawn(
      [
        "bun",
        "-e",
        `import { receiptOf } from ${JSON.stringify(RECEIPT)}; import { someIterationMsKept } from ${JSON.stringify(RUN_TIME)};
const kept = someIterationMsKept(); const out = JSON.parse(await Bun.stdin.text()).map(receiptOf);
console.log(JSON.stringify({ kept, keptAfter: someIterationMsKept(), out }));`,
      ],
      { stdin: new Blob([JSON.stringify(all)]), stdout: "pipe" },
    );
    const fresh = JSON.parse(await new Response(child.stdout).text());
    expect(await child.exited).toBe(0);
    expect(fresh.kept).toBe(false);
    expect(fresh.keptAfter).toBe(false); // the receipt keeps none
    for (const s of all) for (const it of s.iterations) iterationMs(it);
    expect(JSON.stringify(all.map(receiptOf))).toBe(JSON.stringify(fresh.out));
    const sums = all.map((s) => receiptOf(s).stories.map((l) => l.duration_ms));
    expect(sums.flat().some((ms) => Number.isNaN(ms))).toBe(true); // "not a time" reaches a sum
    expect(sums.flat().filter((ms) => ms > 0).length).toBeGreaterThan(20);
  });

  test("a figure the seed's reader kept is the one summed", () => {
    const it = sampleIteration(1, { started: TIMES[0]!, ended: TIMES[1]! });
    knownIterationsMs([it], [7]);
    expect(receiptOf(sampleState({ iterations: [it] })).stories[0]!.duration_ms).toBe(7);
  });
});
