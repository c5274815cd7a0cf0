/**
 * `parseArgs` of node:util, for citty in the built binary: citty imports nothing else from node:util,
 * and loading node:util costs ~3M instructions, 3–6 ms of every command's start-up (measured in the
 * built binary; docs/performance.md). scripts/release/compile.ts points citty's `node:util` here, so a
 * citty that needed more of it would fail the build rather than break at run time.
 *
 * The same answers as Bun's own (native) parseArgs, which follows Node's (lib/internal/util/parse_args):
 * tokens, then values, then defaults; where the two differ (a group with a dash in it), Bun's. Only what citty
 * asks for is here — `strict: false`, positionals allowed, options of type string or boolean with an optional
 * `short` and `default`; anything else (strict mode,
 * `multiple`, tokens) throws, so no caller gets an answer node:util would not give.
 * test/commands/args/parse-args.test.ts compares the two on many command lines.
 */

interface OptionConfig {
  type: "string" | "boolean";
  short?: string;
  default?: string | boolean;
}

interface Config {
  args: string[];
  options?: Record<string, OptionConfig>;
  strict?: boolean;
  allowPositionals?: boolean;
}

interface Parsed {
  values: Record<string, string | boolean>;
  positionals: string[];
}

type Token = { kind: "option"; name: string; value: string | undefined } | { kind: "positional"; value: string };

const own = (o: object, key: string) => Object.hasOwn(o, key);

export function parseArgs(config: Config): Parsed {
  if (config.strict !== false || config.allowPositionals !== true || !Array.isArray(config.args))
    throw new Error("parse-args.ts implements node:util parseArgs for citty only: strict false, positionals allowed");
  const options: Record<string, OptionConfig> = config.options ?? {};
  for (const [name, o] of Object.entries(options)) {
    if (typeof o !== "object" || o === null) throw new TypeError(`options.${name} must be an object`);
    if (o.type !== "string" && o.type !== "boolean") throw new TypeError(`options.${name}.type must be string or boolean`);
    if (own(o, "multiple")) throw new Error(`options.${name}: only type, short and default are implemented`);
    if (own(o, "short") && (typeof o.short !== "string" || o.short.length !== 1)) throw new TypeError(`options.${name}.short must be a single character`);
    // Node rejects a default of the wrong type (citty then takes every argument as a positional).
    if (o.default !== undefined && typeof o.default !== o.type) throw new TypeError(`options.${name}.default must be a ${o.type}`);
  }
  const typeOf = (name: string) => (own(options, name) ? options[name]!.type : undefined);
  const longOf = (short: string) => Object.entries(options).find(([, o]) => own(o, "short") && o.short === short)?.[0] ?? short;

  const tokens: Token[] = [];
  const rest = config.args.slice();
  while (rest.length > 0) {
    const arg = rest.shift()!;
    const next = rest[0];
    if (arg === "--") {
      for (const value of rest) tokens.push({ kind: "positional", value });
      break;
    }
    if (arg.length === 2 && arg[0] === "-" && arg[1] !== "-") {
      // -f, and -f VALUE for a string option (greedy: VALUE may start with a dash)
      const name = longOf(arg[1]!);
      tokens.push({ kind: "option", name, value: typeOf(name) === "string" && next !== undefined ? rest.shift() : undefined });
      continue;
    }
    if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const first = longOf(arg[1]!);
      if (typeOf(first) !== "string") {
        // A group: -abc is -a -b -c, each letter as it is (Bun's reads -f- as -f and an option named "-"); a
        // string option inside takes the rest (-abfFILE), or, last, the next argument (-abf FILE).
        for (let i = 1; i < arg.length; i++) {
          const name = longOf(arg[i]!);
          if (typeOf(name) !== "string") tokens.push({ kind: "option", name, value: undefined });
          else {
            const value = i < arg.length - 1 ? arg.slice(i + 1) : next !== undefined ? rest.shift() : undefined;
            tokens.push({ kind: "option", name, value });
            break;
          }
        }
        continue;
      }
      tokens.push({ kind: "option", name: first, value: arg.slice(2) }); // -fFILE
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=", 3);
      if (eq === -1) {
        const name = arg.slice(2);
        tokens.push({ kind: "option", name, value: typeOf(name) === "string" && next !== undefined ? rest.shift() : undefined });
      } else tokens.push({ kind: "option", name: arg.slice(2, eq), value: arg.slice(eq + 1) }); // --foo=bar
      continue;
    }
    tokens.push({ kind: "positional", value: arg });
  }

  const values: Record<string, string | boolean> = { __proto__: null } as unknown as Record<string, string | boolean>;
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === "positional") positionals.push(t.value);
    else if (t.name !== "__proto__") values[t.name] = t.value ?? true; // the value given, whatever the option's type
  }
  for (const [name, o] of Object.entries(options))
    if (own(o, "default") && o.default !== undefined && values[name] === undefined && name !== "__proto__") values[name] = o.default;
  return { values, positionals };
}
