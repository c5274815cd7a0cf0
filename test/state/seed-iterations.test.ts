// The seed's iterations are built at start-up by one loop written for the interpreter (state/seed.ts).
// What it must give is what the earlier code gave, kept below as the reference: one small function a
// field (`time`, `countOf`…), which the loop inlines. Fed every shape of time a seed file may hold (with
// and without a zone, fractions, `Z`, offsets that cross a day or a year, invalid and out-of-range ones)
// and every wrong kind of value in each field, both must make the same iterations, sums and spans.
import { describe, expect, test } from "bun:test";
import { seedState } from "../../src/state/seed.ts";
import { iterationMs } from "../../src/state/run-time.ts";

type Time = { iso: string; ms: number };
const MIN_TIME = Date.parse("0000-01-01T00:00:00.000Z");
const MAX_TIME = Date.parse("+010000-01-01T00:00:00.000Z");
const EPOCH: Time = { iso: new Date(0).toISOString(), ms: 0 };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown, d: string) => (typeof v === "string" ? v : d);
const bool = (v: unknown) => (typeof v === "boolean" ? v : false);
const positiveInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;
const count = (n: number | undefined) => (Number.isSafeInteger(Math.round(n ?? 0)) ? Math.max(0, Math.round(n ?? 0)) : 0);
const commitsOf = (v: unknown): string[] => (Array.isArray(v) && v.every((c) => typeof c === "string") ? v : []);
function time(s: string, fallback: Time): Time {
  const t = Date.parse(s);
  return t >= MIN_TIME && t < MAX_TIME ? { iso: new Date(t).toISOString(), ms: t } : fallback;
}

/** The reference: the iterations, the loop's token sums and each iteration's span, as the earlier code made them. */
function reference(json: Record<string, unknown>) {
  const start = time(json.started_at as string, EPOCH);
  const sum = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
  const iterations: unknown[] = [];
  const spans: number[] = [];
  for (const v of Array.isArray(json.iterations) ? json.iterations : []) {
    if (!isObject(v) || !positiveInt(v.n)) return { iterations: [], sum: { input: 0, output: 0, cache_read: 0, cache_creation: 0 }, spans: [] };
    const tokens = {
      input: count(num(v.input_tokens)),
      output: count(num(v.output_tokens)),
      cache_read: count(num(v.cache_read_tokens)),
      cache_creation: count(num(v.cache_create_tokens)),
    };
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += tokens[k];
    const began = time(str(v.started, ""), start);
    const ended = time(str(v.ended, ""), began);
    const commits = [...commitsOf(v.commits)];
    const done = bool(v.done_check);
    const timedOut = bool(v.timed_out);
    iterations.push({
      n: v.n,
      started: began.iso,
      ended: ended.iso,
      done_check: done,
      commits,
      tokens_used: count(num(v.tokens_used)),
      ...(timedOut ? { timed_out: true } : {}),
      story_id: null,
      story_title: null,
      attempt: 1,
      outcome: timedOut ? "timeout" : done ? "complete" : "no_signal",
      reason: null,
      progress: commits.length > 0,
      tokens,
      cost_usd: null,
      turns: null,
      exit_code: null,
      log_file: str(v.log_file, ""),
    });
    spans.push(ended.ms - began.ms);
  }
  return {
    iterations,
    sum: { input: count(sum.input), output: count(sum.output), cache_read: count(sum.cache_read), cache_creation: count(sum.cache_creation) },
    spans,
  };
}

// Every shape of time we could think of; `date -Iseconds` (what wt-tools' bash wt-loop wrote) first.
const TIMES: unknown[] = [
  "2026-11-21T10:00:05+01:00",
  "2026-11-21T10:10:00+01:00",
  "2026-11-21T00:30:00+01:00",
  "2026-11-21T23:30:00-01:00",
  "2026-12-31T23:59:59-05:00",
  "2026-01-01T00:00:00+14:00",
  "2026-03-01T00:10:00+02:00",
  "2024-02-29T23:10:00-02:00",
  "2026-11-21T10:00:05+00:00",
  "2026-11-21T10:00:05-00:00",
  "2026-11-21T10:00:05Z",
  "2026-11-21T10:00:05.1Z",
  "2026-11-21T10:00:05.123Z",
  "2026-11-21T10:00:05.123456+01:00",
  "2026-11-21T10:00:05.999999999-03:30",
  "2026-11-21T10:00:05+05:45",
  "2026-11-21T10:00:05",
  "2026-11-21T10:00",
  "2026-11-21T10:00+01:00",
  "2026-11-21",
  "2026-11",
  "2026",
  "2026-02-29T10:00:00+01:00",
  "2024-02-29T10:00:00+01:00",
  "2026-02-30T10:00:00+01:00",
  "2026-04-31T10:00:00+01:00",
  "2026-13-01T10:00:00+01:00",
  "2026-00-10T10:00:00+01:00",
  "2026-11-00T10:00:00+01:00",
  "2026-11-21T24:00:00+01:00",
  "2026-11-21T24:00:00Z",
  "2026-11-21T23:60:00Z",
  "2026-11-21T10:00:60Z",
  "2026-11-21T10:00:05+24:00",
  "2026-11-21T10:00:05+23:59",
  "2026-11-21T10:00:05+01:60",
  "2026-11-21T10:00:05+0100",
  "2026-11-21T10:00:05+01",
  "2026-11-21T10:00:05 +01:00",
  "2026-11-21 10:00:05+01:00",
  "2026-11-21t10:00:05z",
  " 2026-11-21T10:00:05+01:00",
  "2026-11-21T10:00:05+01:00\n",
  "２０２６-11-21T10:00:05+01:00",
  "Sat Nov 21 10:00:05 CET 2026",
  "Nov 21 2026 10:00",
  "0000-01-01T00:30:00+01:00",
  "0000-01-01T01:30:00+01:00",
  "9999-12-31T23:30:00-01:00",
  "9999-12-31T23:59:59.999Z",
  "+010000-01-01T00:00:00Z",
  "-000001-12-31T23:59:59Z",
  "+002026-11-21T10:00:05+01:00",
  "",
  "x",
  null,
  1732179605000,
  true,
  {},
];
const base = { n: 1, done_check: false, commits: [], tokens_used: 1, log_file: "/l" };
const seed = (started_at: unknown, iterations: unknown[]) => ({ worktree_name: "wt", status: "stopped", started_at, iterations });

describe("the seed's iterations: the one-pass loop gives what the earlier code gave", () => {
  test(`${TIMES.length} shapes of time, as started, as ended, and as the loop's start`, () => {
    const states: Record<string, unknown>[] = [];
    for (const a of TIMES) {
      if (typeof a === "string") states.push(seed(a, [{ ...base, started: a, ended: a }]));
      states.push(seed("2026-11-21T10:00:00+01:00", [{ ...base, started: a, ended: "2026-11-21T10:10:00+01:00" }]));
      for (const b of TIMES) states.push(seed("2026-11-21T09:00:00Z", [{ ...base, started: a, ended: b }]));
    }
    for (const json of states) {
      const s = seedState(json, "/w")!;
      const ref = reference(json);
      expect({ json, iterations: JSON.stringify(s.iterations) }).toEqual({ json, iterations: JSON.stringify(ref.iterations) });
      expect({ json, spans: s.iterations.map(iterationMs) }).toEqual({ json, spans: ref.spans });
    }
  });

  test("every wrong kind of value in each field of an iteration, one and among others", () => {
    const ODD: unknown[] = [undefined, null, 0, -1, 1.5, 2.5, -0.4, 2 ** 53, 2 ** 60, Number.MAX_SAFE_INTEGER, "x", "", true, false];
    ODD.push([], {}, ["a"], [1], ["a", 1], ["a", null], [true]);
    const full = {
      n: 3,
      started: "2026-11-21T10:00:05+01:00",
      ended: "2026-11-21T10:10:00+01:00",
      done_check: true,
      commits: ["abc", "def"],
      tokens_used: 1000,
      input_tokens: 800,
      output_tokens: 200,
      cache_read_tokens: 5,
      cache_create_tokens: 7,
      timed_out: false,
      log_file: "/x/ralph-iter-003.log",
    };
    const states: Record<string, unknown>[] = [seed("2026-11-21T10:00:00+01:00", [full, { ...full, n: 4, timed_out: true }])];
    for (const key of Object.keys(full))
      for (const v of ODD) {
        const it: Record<string, unknown> = { ...full, [key]: v };
        if (v === undefined) delete it[key];
        states.push(seed("2026-11-21T10:00:00+01:00", [it]), seed("2026-11-21T10:00:00+01:00", [full, it, { ...full, n: 5 }]));
      }
    for (const v of ODD) states.push(seed("2026-11-21T10:00:00+01:00", [full, v]));
    for (const json of states) {
      const s = seedState(json, "/w")!;
      const ref = reference(json);
      expect({ json, iterations: JSON.stringify(s.iterations) }).toEqual({ json, iterations: JSON.stringify(ref.iterations) });
      expect({ json, tokens: s.tokens, spans: s.iterations.map(iterationMs) }).toEqual({ json, tokens: ref.sum, spans: ref.spans });
    }
  });
});
