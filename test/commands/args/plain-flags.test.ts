/**
 * The front door parses a line of a command's plain boolean flags itself (commands/args/args.ts
 * plainFlags) instead of through citty: what it hands the command must be what citty's parse would,
 * for every command of the catalog, and any other line must be left to citty.
 */
import { describe, expect, test } from "bun:test";
import { parseArgs, type ArgsDef } from "citty";
import { COMMANDS } from "../../../src/catalog/catalog.ts";
import { plainFlags } from "../../../src/commands/args/args.ts";

const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

describe("plainFlags gives what citty's parse gives", () => {
  test("for every command: no flags, each flag, all its plain flags; anything else is citty's", async () => {
    let fast = 0;
    // Beside the catalog's, commands with what none of them has today: an alias, a default, a required option, a positional.
    const run = () => {};
    const made = [
      { name: "aliased", load: async () => ({ args: { force: { type: "boolean", alias: "f" }, json: { type: "boolean" } }, run }) },
      { name: "defaulted", load: async () => ({ args: { verbose: { type: "boolean", default: true }, json: { type: "boolean" } }, run }) },
      { name: "required", load: async () => ({ args: { wait: { type: "string", required: true }, json: { type: "boolean" } }, run }) },
      { name: "positional", load: async () => ({ args: { task: { type: "positional", default: "x" }, json: { type: "boolean" } }, run }) },
    ];
    for (const info of [...COMMANDS, ...made] as { name: string; load: () => Promise<any> }[]) {
      const cmd = await info.load();
      const defs = ((typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {}) as ArgsDef;
      const names = Object.keys(defs);
      const plain = names.filter((n) => defs[n]!.type === "boolean" && /^[a-z][a-z0-9]*$/.test(n) && !("alias" in defs[n]!));
      const lines = [
        [],
        ...names.map((n) => [`--${n}`]),
        plain.map((n) => `--${n}`),
        [...plain.map((n) => `--${n}`), ...plain.map((n) => `--${n}`)],
        ...plain.flatMap((n) => [[`--${n}=false`], [`--no-${n}`], [`-${n[0]}`], [`--${n.toUpperCase()}`], [`--${n}`, "x"], [`--${n}`, "--"]]),
        ["--nope"],
        ["x"],
        ["--"],
        ["--constructor"],
        ["--__proto__"],
      ];
      for (const line of lines) {
        const ours = plainFlags(cmd, line);
        if (!ours) continue;
        fast++;
        let theirs: Record<string, unknown>;
        try {
          theirs = parseArgs(line, defs) as Record<string, unknown>;
        } catch (err) {
          throw new Error(`${info.name} ${line.join(" ")}: citty refuses it (${(err as Error).message}), plainFlags does not`);
        }
        const what = `${info.name} ${line.join(" ")}`;
        expect({ what, keys: Object.keys(ours).sort() }).toEqual({ what, keys: Object.keys(theirs).sort() });
        for (const n of ["_", ...names, ...names.map(camel)]) expect({ what, n, v: ours[n] }).toEqual({ what, n, v: theirs[n] });
      }
    }
    // Not vacuous: the read-only commands' lines are the fast ones.
    for (const [name, line] of [
      ["status", []],
      ["status", ["--json"]],
      ["history", []],
      ["list", []],
      ["list", ["--json"]],
    ] as const) {
      const cmd = await COMMANDS.find((c) => c.name === name)!.load();
      expect({ name, line, fast: plainFlags(cmd, [...line]) !== null }).toEqual({ name, line, fast: true });
    }
    expect(fast).toBeGreaterThan(20);
  }, 60_000);
});
