// The seed's state format (wt-tools' bash wt-loop) is read at start-up by a hand-written reader; its
// zod schema stays the source of truth. Both are fed broken seed states — every field, at the top and
// in an iteration, given each wrong kind of value or deleted — and must agree on the verdict and the fields.
import { describe, expect, test } from "bun:test";
import { fromSeed, isSeedState, readSeed, seedSchema, seedState } from "../../src/state/seed.ts";
import { State } from "../../src/state/schema.ts";
import { checkState } from "../../src/state/state-check.gen.ts";

const ITERATION = {
  n: 1,
  started: "2026-11-01T10:00:05+01:00",
  ended: "2026-11-01T10:10:00+01:00",
  done_check: true,
  commits: ["abc"],
  tokens_used: 1000,
  input_tokens: 800,
  output_tokens: 200,
  cache_read_tokens: 5,
  cache_create_tokens: 7,
  timed_out: false,
  log_file: "/x/ralph-iter-001.log",
  extra: 1,
};
const SEED = {
  worktree_name: "wt",
  task: "Implement auth",
  done_criteria: "tasks",
  max_iterations: 10,
  current_iteration: 2,
  status: "stalled",
  terminal_pid: 4242,
  started_at: "2026-11-01T10:00:00+01:00",
  stall_threshold: 2,
  iteration_timeout_min: 45,
  total_tokens: 1500,
  model: "opus",
  change: "add-auth",
  label: null,
  iterations: [ITERATION, { ...ITERATION, n: 2 }],
};
const ODD: unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  "x",
  "",
  true,
  false,
  [],
  {},
  ["a"],
  [1],
  { n: 1 },
  // Times JavaScript reads but the state cannot hold (toISOString writes "+010000-…", "-000001-…").
  "+010000-01-01T00:00:00Z",
  "-000001-12-31T23:59:59Z",
  "9999-12-31T23:59:59.999Z",
  "0000-01-01T00:00:00+01:00",
  "Nov 21 2026 10:00",
];
const DELETE = Symbol("delete");

function variants(base: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const key of [...Object.keys(base), "unknown_key"])
    for (const v of [...ODD, DELETE]) {
      const copy = { ...base };
      if (v === DELETE) delete copy[key];
      else copy[key] = v;
      out.push(copy);
    }
  return out;
}

const cases: unknown[] = [
  SEED,
  null,
  [],
  "x",
  1,
  { ...SEED, schema_version: 1 },
  ...variants(SEED),
  ...variants(ITERATION).flatMap((it) => [
    { ...SEED, iterations: [it] },
    { ...SEED, iterations: [ITERATION, it] },
  ]),
];

describe("the seed's state: the hand-written reader agrees with the zod schema", () => {
  test(`${cases.length} states, valid and broken`, async () => {
    const schema = await seedSchema();
    let read = 0;
    for (const json of cases) {
      const parsed = schema.safeParse(json);
      const mine = readSeed(json);
      expect({ json, ok: mine !== null }).toEqual({ json, ok: parsed.success });
      if (!mine) expect(seedState(json, "/w")).toBeNull();
      if (!parsed.success || !mine) continue;
      read++;
      expect(mine).toEqual(parsed.data);
      // Start-up's reading (`loose: false`): the same, but for the iterations' keys the schema does not name.
      const strict = readSeed(json, false)!;
      expect({ ...strict, iterations: strict.iterations.length }).toEqual({ ...mine, iterations: mine.iterations.length });
      strict.iterations.forEach((it, k) => {
        const { extra, unknown_key, ...named } = mine.iterations[k]!;
        expect(it).toEqual(named as never);
      });
      // What it becomes is a valid state, with the state schema's defaults, its fields in the
      // schema's order (`status --json` prints them): checking it again, by zod or by the generated
      // check, changes nothing. The iterations are built unchecked (state/seed.ts): this is their check.
      const s = fromSeed(json, "/w");
      expect(JSON.stringify(State.parse(s))).toBe(JSON.stringify(s));
      const again = checkState(s);
      expect(again.ok && JSON.stringify(again.value)).toBe(JSON.stringify(s));
      // The loop's tokens are its iterations' (none when the list was unknown).
      const sum = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };
      for (const it of s.iterations) for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += it.tokens[k];
      expect(s.tokens).toEqual(sum);
      // What start-up reads (state/store.ts): the same state, key order included, in one pass.
      expect(JSON.stringify(seedState(json, "/w"))).toBe(JSON.stringify(s));
    }
    expect(read).toBeGreaterThan(cases.length / 2);
    // A state with a schema_version is never the seed's, whatever else it holds.
    expect(cases.filter(isSeedState).length).toBe(read - 1);
    expect(isSeedState({ ...SEED, schema_version: 1 })).toBe(false);
  });
});

describe("the seed's state with counts whose sum a state cannot hold", () => {
  test("is read: a loop's sum past 2^53 is as unknown as a count past it, not an unexpected error", () => {
    const huge = { ...ITERATION, input_tokens: Number.MAX_SAFE_INTEGER, tokens_used: Number.MAX_SAFE_INTEGER };
    const json = { ...SEED, iterations: [huge, { ...huge, n: 2 }] };
    const s = fromSeed(json, "/w");
    expect(JSON.stringify(State.parse(s))).toBe(JSON.stringify(s));
    expect(s.tokens).toEqual({ input: 0, output: 400, cache_read: 10, cache_creation: 14 });
    expect(s.iterations.map((it) => it.tokens.input)).toEqual([Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);
    expect(JSON.stringify(seedState(json, "/w"))).toBe(JSON.stringify(s));
  });
});
