// The generated validator (src/state/state-check.gen.ts) stands in for `State.safeParse` wherever the
// state is read or written: it must accept exactly what zod accepts and give exactly zod's value.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { generateChecker } from "../../src/state/codegen.ts";
import { CHECKER_FILE, checkerText } from "../../src/setup/json-schema.ts";
import { State } from "../../src/state/schema.ts";
import { checkState } from "../../src/state/state-check.gen.ts";
import { ROOT } from "../helpers/cli.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Every path to a value inside `v` (the root included). */
function paths(v: Json, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

/** A deep copy of `root` with the value at `path` replaced (undefined: the key deleted). */
function mutate(root: Json, path: Path, value: Json | undefined): unknown {
  const copy = structuredClone(root) as any;
  if (path.length === 0) return value;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const last = path[path.length - 1]!;
  if (value === undefined) Array.isArray(parent) ? parent.splice(last as number, 1) : delete parent[last];
  else parent[last] = value;
  return copy;
}

const VALUES: (Json | undefined)[] = [
  undefined,
  null,
  "",
  "x",
  0,
  -1,
  1,
  1.5,
  2 ** 53,
  1e300,
  true,
  false,
  [],
  {},
  ["a"],
  [1],
  { a: 1 },
  "2026-11-21T10:00:00Z",
  "2026-11-21T10:00:00.123456+01:00",
  "2026-02-29T10:00:00Z",
  "2028-02-29T10:00:00Z",
  "2026-13-01T10:00:00Z",
  "2026-11-21 10:00:00Z",
  "2026-11-21T10:00:00",
  "2026-11-21T24:00:00Z",
  "running",
  "done",
  "complete",
  "branch",
  "stash",
  "keep",
  "claude",
];

/**
 * A value of `schema` with every optional field present, every nullable one non-null and every
 * array holding one element: the fields added later are covered without naming them here.
 */
function fullest(schema: any): Json {
  const d = schema._zod.def;
  switch (d.type) {
    case "object":
      return Object.fromEntries(Object.entries(d.shape).map(([k, v]) => [k, fullest(v)]));
    case "array":
      return [fullest(d.element)];
    case "optional":
    case "nullable":
    case "default":
      return fullest(d.innerType);
    case "string":
      return d.format === "datetime" ? "2026-11-21T10:00:00.000Z" : "text";
    case "number":
      return 1;
    case "boolean":
      return true;
    case "literal":
      return d.values[0];
    case "enum":
      return Object.values(d.entries)[0] as Json;
    default:
      throw new Error(`fullest: extend it for ${d.type}`);
  }
}

/** Both validators on one input: the same verdict, and when valid the same value, key order included. */
function expectSame(input: unknown, what: string) {
  const zod = State.safeParse(input);
  const ours = checkState(input);
  if (zod.success !== ours.ok)
    throw new Error(
      `${what}: zod ${zod.success ? "accepts" : "rejects"}, the generated check ${ours.ok ? "accepts" : `rejects (${(ours as { path: string }).path})`}`,
    );
  if (zod.success && ours.ok) expect(JSON.stringify(ours.value)).toBe(JSON.stringify(zod.data));
}

describe("the generated state check", () => {
  test(`the committed ${CHECKER_FILE} is what the code generates (run \`bun run schema\` when this fails)`, () => {
    expect(readFileSync(join(ROOT, CHECKER_FILE), "utf8")).toBe(checkerText());
  });

  const bases: [string, Json][] = [
    ["a state with every optional field", fullest(State)],
    [
      "a finished loop",
      sampleState({
        iterations: [
          sampleIteration(1, { timed_out: true, commits: ["a", "b"] }),
          sampleIteration(2, { cost_usd: null, turns: null, exit_code: null, story_id: null, story_title: null, outcome: "complete" }),
        ],
      }) as unknown as Json,
    ],
    [
      "a running stash loop",
      sampleState({
        status: "running",
        ended_at: null,
        checkpoint: "stash",
        current_story: { id: "2", title: "Build", index: 2, attempt: 1 },
        runner_pid: 42,
        runner_started: "123",
        agent_pid: 43,
        checkpoint_stashes: ["abc"],
        index_tree: null,
        completing: "cleanup",
        notify: "echo hi",
      }) as unknown as Json,
    ],
  ];

  for (const [name, base] of bases)
    test(`accepts and rejects exactly what zod does: every value of ${name} replaced, deleted or given an extra key`, () => {
      expect(State.safeParse(base).success).toBe(true); // a valid start, so each mutation tests one field
      expectSame(base, `${name} as it is`);
      let cases = 0;
      for (const path of paths(base)) {
        for (const value of VALUES) {
          expectSame(mutate(base, path, value), `${name} with ${path.join(".") || "the root"} = ${JSON.stringify(value)}`);
          cases++;
        }
        const target = path.reduce<any>((o, k) => o?.[k], base);
        if (target && typeof target === "object" && !Array.isArray(target))
          expectSame(mutate(base, path, { ...target, unknown_field: 1 }), `${name} with an unknown key at ${path.join(".")}`);
      }
      expect(cases).toBeGreaterThan(1000);
    }, 240_000); // ~5 s quiet; thousands of zod parses took 84-103 s at load 12-15

  test("a state without the fields that have defaults gets zod's defaults", () => {
    const old = sampleState() as any;
    for (const k of ["planned_stories", "completion_message", "completion_pending", "notify"]) delete old[k];
    expectSame(old, "an older state");
    const r = checkState(old);
    expect(r.ok && [r.value.planned_stories, r.value.completion_message, r.value.completion_pending, r.value.notify]).toEqual([[], null, false, null]);
  });

  test("a state with its keys in another order, or an optional key present but undefined, gets zod's value, key order included", () => {
    const written = JSON.parse(JSON.stringify(State.parse(fullest(State)))); // as wt-loop writes it
    const reversed = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).reverse());
    const shuffled = { ...reversed(written), iterations: written.iterations.map(reversed) };
    expectSame(shuffled, "a state with its keys in reverse order");
    const again = checkState(shuffled);
    expect(again.ok && Object.keys(again.value)).toEqual(Object.keys(written));
    expect(again.ok && Object.keys(again.value.iterations[0]!)).toEqual(Object.keys(written.iterations[0]));
    expectSame({ ...written, iterations: [{ ...written.iterations[0], model: undefined }] }, "an optional key present but undefined");
  });

  test("says where a state is wrong", () => {
    const r = checkState(
      mutate(sampleState({ iterations: [sampleIteration(1), sampleIteration(2)] }) as unknown as Json, ["iterations", 1, "started"], "yesterday"),
    );
    expect(r).toEqual({ ok: false, path: "iterations[1].started", expected: "a datetime string" });
    expect(checkState(null)).toEqual({ ok: false, path: "(the whole file)", expected: "an object" });
  });

  test("refuses, when generating, a schema it cannot translate exactly", () => {
    const opts = { name: "check", typeName: "X", typeImport: "./x.ts", where: "X" };
    expect(() => generateChecker(z.object({ a: z.union([z.string(), z.number()]) }), opts)).toThrow("cannot translate type union (at .a of X)");
    expect(() => generateChecker(z.object({ a: z.string().min(2) }), opts)).toThrow("string check min_length");
    expect(() => generateChecker(z.looseObject({ a: z.string() }), opts)).toThrow("keeps or refuses unknown keys");
  });
});
