/**
 * The config files: `.wt-loop.json` at the worktree root (the project's, committed) and the user's
 * `$XDG_CONFIG_HOME/wt-loop/config.json`. Keys are the long flag names. A file is checked whole
 * before anything is done: every bad key or value is named with the file, so a team's typo never
 * becomes a silent default.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { didYouMean, nearest, orList } from "../text/suggest.ts";
import { jsonErrorAt } from "./json-position.ts";
import { NONE } from "./options.ts";
import { OPTIONS, valueJsonSchema, type OptionInfo } from "./option-table.ts";

export type ConfigScope = "project" | "user";

export interface ConfigFile {
  path: string;
  scope: ConfigScope;
  /** The values it sets, in `LoopOptions` keys, as written (each checked against its option). */
  values: Record<string, unknown>;
  /** The sha256 of the text read: what `wt-loop trust` records, of exactly what was applied. */
  sha256: string;
}

export const PROJECT_FILE = ".wt-loop.json";

/** `$XDG_CONFIG_HOME`, or `~/.config`: the user's config folder, which holds wt-loop's own folder. */
export const configBase = (env: Record<string, string | undefined> = process.env) => env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");

export function configPaths(worktree: string, env: Record<string, string | undefined> = process.env): Record<ConfigScope, string> {
  return { project: join(worktree, PROJECT_FILE), user: join(configBase(env), "wt-loop", "config.json") };
}

/** The options a file of this scope may set (the keys of its JSON Schema). */
export const settable = (scope: ConfigScope) => OPTIONS.filter((o) => o.meta.file !== "none" && (o.meta.file !== "user" || scope === "user"));

/** The file's settings, or null when there is no file. Throws a UserError naming every problem. */
export function readConfigFile(path: string, scope: ConfigScope): ConfigFile | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new UserError(`Cannot read the config file ${path}: ${(err as Error).message}. Nothing was written.`);
  }
  const at = jsonErrorAt(text);
  if (at) throw new UserError(`${path}:${at.line}:${at.column}: not valid JSON: expected ${at.expected}, found ${at.found}. Nothing was written.`);
  const json: unknown = JSON.parse(text);
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new UserError(`${path} must hold a JSON object of options, like {"max-retries": 5, "verify": "bun test"}. Nothing was written.`);
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (key === "$schema") continue;
    const o = OPTIONS.find((x) => x.flag === key && !x.meta.positional);
    if (!o || !settable(scope).includes(o)) problems.push(keyProblem(key, o, scope));
    else {
      const bad = valueProblem(o, value);
      if (bad) problems.push(`"${key}" ${bad}`);
      else values[o.key] = value;
    }
  }
  if (problems.length === 1) throw new UserError(`${path}: ${problems[0]}. Nothing was written.`);
  if (problems.length) throw new UserError(`${path} has ${problems.length} mistakes; nothing was written:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return { path, scope, values, sha256: contentSha256(text) };
}

/** What trust records of a project file: the sha256 of its text as read (`wt-loop trust --show` compares the same). */
export const contentSha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function keyProblem(key: string, o: OptionInfo | undefined, scope: ConfigScope): string {
  if (o?.meta.file === "user")
    return `"${key}" can only be set in your user file (${configPaths("", process.env).user}), not the project's: it is a personal choice`;
  if (o) return `"${key}" cannot be set in a config file: give --${key} on the command line`;
  const keys = settable(scope).map((x) => x.flag);
  return `unknown key "${key}".${didYouMean(key, keys, (k) => `"${k}"`)} The keys are the long option names (\`wt-loop config\` lists them)`;
}

/** Why a value from a file is not allowed (null: it is), naming the value and what is allowed. */
function valueProblem(o: OptionInfo, value: unknown): string | null {
  const got = `, got ${JSON.stringify(value)}`;
  const type = o.kind === "integer" ? "number" : o.kind;
  if (typeof value !== type && !(o.removable && value === NONE)) return `must be ${expected(o)}${got}`;
  const r = o.schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  if (o.choices) {
    const n = nearest(String(value), o.choices);
    return `must be ${orList(o.choices)}${got}${n ? ` (did you mean "${n}"?)` : ""}`;
  }
  // The option's own message names it as a flag (`--max must be at least 1`): here the key is named already.
  return `${issue.message.replace(/^--[\w-]+:? /, "").replace(/^(?!must|needs)/, "is invalid: ")}${got}`;
}

const expected = (o: OptionInfo) => {
  const what = o.choices ? orList(o.choices.map((c) => JSON.stringify(c))) : o.kind === "integer" ? "a whole number" : `a ${o.kind}`;
  return o.removable ? `${what} (or "${NONE}" to clear it)` : what;
};

/** The config files' JSON Schema (`wt-loop schema config`), from the options table. */
export function configJsonSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = { $schema: { type: "string", description: "The JSON Schema this file follows (editors use it)" } };
  for (const o of settable("user")) {
    const json = valueJsonSchema(o);
    const value = o.removable ? { anyOf: [json, { const: NONE }] } : json;
    const only = o.meta.file === "user" ? " (only in the user file)" : "";
    properties[o.flag] = { ...value, description: `${o.meta.help}${only}`, ...(o.default === undefined ? {} : { default: o.default }) };
  }
  return { type: "object", properties, additionalProperties: false };
}
