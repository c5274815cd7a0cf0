/**
 * Shared pieces of the commands: strict option checking (citty accepts unknown flags silently; the values are
 * validated by setup/validate.ts), and the error boundary that turns a UserError into its message and an exit
 * code instead of a stack trace.
 */
import type { ArgsDef, CommandDef } from "citty";
import { describeIoError, ExitCode, HarnessError, UserError } from "../../errors.ts";
import { CommandError } from "../../proc/command-error.ts";
import { camel } from "../../text/format.ts";
import { didYouMean, NOT_ASCII_DASH, typographicFlag } from "../../text/suggest.ts";
import { printError } from "../../term/print.ts";

/** `run`, `start` and `monitor` on a terminal draw the loop screen; this asks for the line stream instead. */
export const plainArg = {
  plain: { type: "boolean", description: "Show the loop as a stream of lines, not the full screen (as when the output is not a terminal)" },
} as const;

/**
 * Rejects options the command does not define and extra positional arguments, then returns the
 * defined options that were given, keyed in camelCase.
 */
export function givenOptions(cmd: string, defs: ArgsDef, rawArgs: string[], args: Record<string, unknown>): Record<string, unknown> {
  const known = new Set(["help", "h"]);
  let positionals = 0;
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") positionals++;
    else known.add(name).add(camel(name));
    if ("alias" in def && typeof def.alias === "string") known.add(def.alias);
  }
  const options = () =>
    Object.entries(defs)
      .filter(([, d]) => d.type !== "positional")
      .map(([n]) => n);
  for (const token of rawArgs) {
    if (token === "--") break;
    const typed = typographicFlag(token);
    if (typed !== null) {
      // `status —json`, pasted from a document. Where a task may stand (`start "—refactor"`), only a word that
      // is, or is near, an option is taken for one (`start —max 5`); docs/decisions.md.
      const hint = typed.length === 1 && known.has(typed) ? ` Did you mean -${typed}?` : didYouMean(typed, [...options(), "help"], (o) => `--${o}`);
      if (positionals === 0 || hint)
        throw new UserError(`Unknown option ${token.split("=")[0]}: ${NOT_ASCII_DASH}${hint} Run \`wt-loop ${cmd} --help\` to see the options.`);
      continue;
    }
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) continue;
    const name = token.replace(/^--?/, "").split("=")[0]!;
    if (!known.has(name) && !(name.startsWith("no-") && known.has(name.slice(3)))) {
      const hint = didYouMean(name, options(), (o) => `--${o}`);
      throw new UserError(`Unknown option ${token.split("=")[0]}.${hint} Run \`wt-loop ${cmd} --help\` to see the options.`);
    }
  }
  const given = (args._ as string[] | undefined) ?? [];
  const extra = given.slice(positionals);
  if (extra.length && positionals === 1) {
    // `wt-loop start fix the bug`: the task is one argument; the shell split it into words.
    const task = given.join(" ").replace(/'/g, `'\\''`);
    throw new UserError(`Unexpected argument '${extra[0]}': the task is one argument. Quote it: wt-loop ${cmd} '${task}'`);
  }
  if (extra.length) throw new UserError(`Unexpected argument '${extra[0]}'. Run \`wt-loop ${cmd} --help\` for usage.`);
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    const v = args[name];
    if (v !== undefined && !(def.type === "boolean" && v === false)) out[camel(name)] = v;
  }
  return out;
}

/** The error boundary of every command: user errors print their message; exit codes in docs/commands.md. */
export function action<A>(fn: (ctx: A) => Promise<number | void>): (ctx: A) => Promise<void> {
  return async (ctx) => {
    try {
      const code = await fn(ctx);
      process.exitCode = code ?? ExitCode.done;
    } catch (err) {
      // Plain text on stderr: a user error is advice to read (and sometimes an exact contract), not a log line.
      if (err instanceof UserError) {
        printError(err.message);
        process.exitCode = err.exitCode;
      } else if (err instanceof CommandError || err instanceof HarnessError) {
        printError(err.message);
        process.exitCode = ExitCode.usage;
      } else if (describeIoError(err)) {
        // A disk full, a permission, a folder in the way: the environment, not a bug of ours.
        printError(describeIoError(err)!);
        process.exitCode = ExitCode.usage;
      } else {
        printError("wt-loop hit an unexpected error (a bug; please report it with this output):");
        printError(await bugReport(err));
        process.exitCode = ExitCode.usage;
      }
    }
  };
}

/**
 * The version, then the error and where it was thrown. Not Bun.inspect: it puts the source line above the
 * stack, which in the binary is a line of minified code (kilobytes of it). Loaded only here: a bug is rare.
 */
async function bugReport(err: unknown): Promise<string> {
  const [{ versionLine }, { default: pkg }] = await Promise.all([import("../../proc/build-info.ts"), import("../../../package.json")]);
  const what = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : Bun.inspect(err);
  return `${versionLine(pkg.version)}\n${what}`;
}

const PLAIN = /^[a-z][a-z0-9]*$/; // a name that is its own camelCase and kebab-case: citty adds no alias

/**
 * What citty's runCommand would hand `cmd` as its `args` for a command line made only of its plain
 * boolean flags (`status`, `status --json`, `history`, `list`): `{ _: [] }` and `true` for each flag
 * given; null for any other line (a value, an alias, a `--no-`, an argument), or a command with a
 * positional, a default, a required option or a hook of citty's, which citty parses. citty's parse
 * costs ~0.9M instructions and ~70 page faults at start-up (its case conversions, maps and Proxy, run
 * once and interpreted) for that answer. test/commands/args/plain-flags.test.ts holds it to citty's.
 */
// biome-ignore lint: citty's CommandDef is generic over each command's own args
export function plainFlags(cmd: CommandDef<any>, rawArgs: string[]): Record<string, unknown> | null {
  const defs: ArgsDef = cmd.args ?? {};
  if (typeof defs !== "object" || typeof (defs as { then?: unknown }).then === "function") return null;
  if (cmd.setup || cmd.cleanup || cmd.subCommands || cmd.default || cmd.plugins || typeof cmd.run !== "function") return null;
  for (const def of Object.values(defs)) if (def.type === "positional" || def.default !== undefined || ("required" in def && def.required)) return null;
  const out: Record<string, unknown> = { _: [] };
  for (const token of rawArgs) {
    const name = token.startsWith("--") ? token.slice(2) : "";
    const def = PLAIN.test(name) && Object.hasOwn(defs, name) ? defs[name] : undefined;
    if (def?.type !== "boolean" || def.alias !== undefined) return null;
    out[name] = true;
  }
  return out;
}
