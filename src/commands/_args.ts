/**
 * Shared pieces of the commands: the loop's option definitions (spread into `start` and `run`),
 * strict option checking (citty accepts unknown flags silently), and the error boundary that turns
 * a UserError into its message and an exit code instead of a stack trace.
 */
import type { ArgsDef } from "citty";
import type { z } from "zod";
import { describeIoError, ExitCode, HarnessError, UserError } from "../errors.ts";
import { CommandError } from "../proc/spawn.ts";
import { TERMINAL_NAMES } from "../term/terminal-names.ts";
import { didYouMean, nearest } from "../term/suggest.ts";

export const loopArgs = {
  change: { type: "string", valueHint: "name", description: "OpenSpec change to implement (default: the only active change with unfinished tasks)" },
  done: { type: "string", valueHint: "tasks|manual", description: "Done criteria (default: tasks when a tasks.md is found, else manual)" },
  max: { type: "string", valueHint: "n", description: "Maximum iterations (agent runs) (default: 30)" },
  "max-retries": { type: "string", valueHint: "n", description: "Attempts per story before giving up (default: 3)" },
  "stall-threshold": { type: "string", valueHint: "n", description: "Consecutive no-progress iterations before stalled (default: 2)" },
  "iteration-timeout": { type: "string", valueHint: "min", description: "Wall-clock limit of one agent run, in minutes (default: 45)" },
  "command-timeout": { type: "string", valueHint: "sec", description: "Limit for each git/openspec command, in seconds (default: 30)" },
  agent: { type: "string", valueHint: "claude|codex|gemini|command", description: "Agent CLI to run (default: claude)" },
  "agent-cmd": { type: "string", valueHint: "cmd", description: "Program run by --agent command (prompt on stdin; run with sh -c)" },
  model: { type: "string", valueHint: "name", description: "Model passed through to the agent (default: the agent's own)" },
  checkpoint: { type: "string", valueHint: "branch|stash", description: "Checkpoint strategy (default: branch)" },
  "on-complete": { type: "string", valueHint: "ask|cleanup|keep", description: "What to do with the checkpoint branch at the end (default: ask; keep when not a TTY)" },
  terminal: {
    type: "string",
    valueHint: "auto|NAME|inline",
    description: `Where the loop runs: auto, inline (this terminal), ${TERMINAL_NAMES.join(", ")}, or any program taking -e (default: auto)`,
  },
  notify: { type: "string", valueHint: "cmd", description: "Command run (sh -c) when the loop ends or waits for you; WT_LOOP_STATUS, WT_LOOP_STATE… in its environment" },
  verify: { type: "string", valueHint: "cmd", description: "Command run (sh -c) after each COMPLETE; a non-zero exit rejects the attempt (default: none)" },
  "verify-timeout": { type: "string", valueHint: "min", description: "Limit of one --verify run, in minutes (default: 10)" },
  "max-cost": { type: "string", valueHint: "usd", description: "Stop the loop (exit 4) once the agent's reported cost reaches this many US dollars (claude only)" },
  "max-tokens": { type: "string", valueHint: "n", description: "Stop the loop (exit 4) once the agent's tokens reach this many" },
  "max-wait": { type: "string", valueHint: "hours", description: "Hours one iteration may wait in all for an agent that hit a usage or rate limit, before the loop gives up (default: 8)" },
  "dry-run": { type: "boolean", description: "Print the plan and exit, writing nothing (default: off)" },
} as const satisfies ArgsDef;

const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

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
  for (const token of rawArgs) {
    if (token === "--") break;
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) continue;
    const name = token.replace(/^--?/, "").split("=")[0]!;
    if (!known.has(name) && !(name.startsWith("no-") && known.has(name.slice(3)))) {
      const options = Object.entries(defs).filter(([, d]) => d.type !== "positional").map(([n]) => n);
      const hint = didYouMean(name, options, (o) => `--${o}`);
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

/** Validates with a zod schema; the message names each offending option as the user typed it. */
export function validate<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const given = (input ?? {}) as Record<string, unknown>;
  const lines = r.error.issues.map((i) => {
    const key = String(i.path[0] ?? "");
    const opt = `--${kebab(key)}`;
    const value = given[key];
    // An empty value (`--max ''`) would otherwise read as 0 or as a wrong choice.
    if (value === "") return `${opt} is empty: give it a value`;
    if (i.code === "invalid_value" && "values" in i)
      return `${opt} must be ${orList(i.values.map(String))}, got '${String(value)}'${nearestChoice(String(value), i.values.map(String))}`;
    return i.message.startsWith("--") ? i.message : `${opt}: ${i.message}`;
  });
  throw new UserError(`Invalid option: ${lines.join("; ")}. Nothing was written.`);
}

const nearestChoice = (v: string, choices: string[]) => {
  const n = nearest(v, choices);
  return n ? ` (did you mean ${n}?)` : "";
};
const orList = (xs: string[]) => (xs.length <= 2 ? xs.join(" or ") : `${xs.slice(0, -1).join(", ")} or ${xs.at(-1)}`);

/** The error boundary of every command: user errors print their message; exit codes per SPEC §11. */
export function action<A>(fn: (ctx: A) => Promise<number | void>): (ctx: A) => Promise<void> {
  return async (ctx) => {
    try {
      const code = await fn(ctx);
      process.exitCode = code ?? ExitCode.done;
    } catch (err) {
      // Plain text on stderr: a user error is advice to read (and sometimes an exact contract), not a log line.
      if (err instanceof UserError) {
        console.error(err.message);
        process.exitCode = err.exitCode;
      } else if (err instanceof CommandError || err instanceof HarnessError) {
        console.error(err.message);
        process.exitCode = ExitCode.usage;
      } else if (describeIoError(err)) {
        // A disk full, a permission, a folder in the way: the environment, not a bug of ours.
        console.error(describeIoError(err));
        process.exitCode = ExitCode.usage;
      } else {
        console.error("wt-loop hit an unexpected error (a bug; please report it with this output):");
        console.error(err);
        process.exitCode = ExitCode.usage;
      }
    }
  };
}
