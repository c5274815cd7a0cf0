/**
 * The built binary's parseArgs (src/commands/args/parse-args.ts, in place of node:util's for citty)
 * must answer what node:util's answers, for every command line citty can hand it: the same values, in
 * the same order, the same positionals, and a throw where node:util throws (citty then takes every
 * argument as a positional). Checked on hand-picked lines and on many generated ones.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs as nodeParseArgs } from "node:util";
import { parseArgs } from "../../../src/commands/args/parse-args.ts";
import { cittyWithoutNodeUtil } from "../../../scripts/release/compile.ts";
import { join } from "node:path";

type Options = Record<string, { type: "string" | "boolean"; short?: string; default?: string | boolean }>;

/** What each returns, or that it threw; values as ordered entries (citty walks them in order). */
function outcome(f: typeof parseArgs, args: string[], options: Options | undefined) {
  try {
    const r = f({ args, options, allowPositionals: true, strict: false } as Parameters<typeof parseArgs>[0]);
    return { values: Object.entries(r.values), positionals: r.positionals, proto: Object.getPrototypeOf(r.values) };
  } catch {
    return "threw";
  }
}

const agree = (args: string[], options?: Options) =>
  expect(outcome(parseArgs, args, options)).toEqual(outcome(nodeParseArgs as unknown as typeof parseArgs, args, options));

// As citty builds them (citty/dist/index.mjs parseRawArgs): every option typed, aliases of one letter as `short`.
const RUN: Options = {
  json: { type: "boolean" },
  force: { type: "boolean", short: "f" },
  max: { type: "string", short: "m" },
  agent: { type: "string", default: "claude" },
  "dry-run": { type: "boolean", default: false },
  dryRun: { type: "boolean", default: false },
  verify: { type: "string" },
};

describe("parseArgs agrees with node:util's", () => {
  const lines: string[][] = [
    [],
    ["--json"],
    ["--max", "5", "task"],
    ["--max=5"],
    ["--max", "--json"], // greedy: the value starts with a dash
    ["--max"], // no value left
    ["-m", "7"],
    ["-m7"],
    ["-fm", "3"],
    ["-fm3"],
    ["-fx"],
    ["-xf"],
    ["-mf"],
    ["-", "--"],
    ["--", "--json", "-f"],
    ["a", "--", "b", "--max", "1"],
    ["--json=false"],
    ["--json", "--json"],
    ["--unknown", "value"],
    ["--unknown=value", "-z"],
    ["--=x"],
    ["---x"],
    ["--__proto__", "--__proto__=1"],
    ["--agent", "codex", "--agent=gemini"],
    ["--dry-run", "--verify", "npm test"],
    ["-", "-f-", "--m"],
    ["--verify="],
    ["é", "--ümlaut", "-é"],
    ["-f-"],
    ["-f-m", "x"],
    ["-fa-b"],
    ["-fm"],
    ["-ffm", "--", "x"],
    ["-mf", "--"],
  ];
  for (const args of lines) test(JSON.stringify(args), () => agree(args, RUN));

  test("no options at all, and options citty could not build (node:util throws, and so must it)", () => {
    agree(["--x", "-y", "z"], undefined);
    agree(["--x"], {});
    agree(["--n", "1"], { n: { type: "string", default: 5 as unknown as string } });
    agree(["--b"], { b: { type: "boolean", default: "yes" as unknown as boolean } });
    agree(["-ab"], { a: { type: "boolean", short: "ab" } });
    agree(["-a"], { a: { type: "number" as "string" } });
  });

  test("on 3,000 generated command lines", () => {
    // A fixed-seed generator: the same lines each run, so a failure can be replayed.
    let seed = 31;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = [
      "--json",
      "--max",
      "-m",
      "-f",
      "-fm",
      "-mf",
      "-fz",
      "-zf",
      "--",
      "-",
      "5",
      "x y",
      "--max=",
      "--agent=a=b",
      "--no-json",
      "-m-",
      "--dry-run",
      "--dryRun",
      "-j",
      "--verify",
      "--f",
      "---",
      "a",
      "-f-",
      "-f-m",
      "-ffm",
      "-fmx",
      "-=",
      "--=",
      "-f=",
      "--max=--",
    ];
    for (let i = 0; i < 3000; i++) {
      const args = Array.from({ length: rnd(7) }, () => pieces[rnd(pieces.length)]!);
      agree(args, RUN);
    }
  });
});

test("the built binary's citty takes parseArgs from parse-args.ts, and nothing from node:util", async () => {
  const root = join(import.meta.dir, "../../..");
  const r = await Bun.build({
    entrypoints: [join(root, "src/commands/status.ts")],
    target: "bun",
    metafile: true,
    plugins: [cittyWithoutNodeUtil],
    throw: false,
  });
  if (!r.success || !r.metafile) throw new Error(r.logs.map(String).join("\n"));
  const inputs = r.metafile.inputs;
  const citty = Object.keys(inputs).find((p) => /node_modules[\\/]citty[\\/]dist[\\/]index\.mjs$/.test(p));
  expect(citty).toBeDefined();
  const imports = inputs[citty!]!.imports.map((i) => i.path);
  expect(imports).toContain("src/commands/args/parse-args.ts");
  expect(imports.filter((p) => p === "node:util" || p === "util")).toEqual([]);
}, 60_000);
