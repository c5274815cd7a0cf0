/** Turning zod's account of bad options into one sentence the user can act on (every command that takes loop options). */
import type { z } from "zod";
import { UserError } from "../errors.ts";
import { kebab } from "../text/format.ts";
import { NOT_ASCII_DASH, nearest, orList, typographicNumber } from "../text/suggest.ts";

/**
 * Validates with a zod schema; the message names each offending option as the user typed it.
 * Without zod's JIT: the options are parsed once or twice a command, and compiling the parser costs
 * more than it saves (~15 ms of `run`'s start before its first frame; issue 35). Same checks, same result.
 */
export function validate<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input, { jitless: true });
  if (r.success) return r.data;
  const given = (input ?? {}) as Record<string, unknown>;
  const lines = r.error.issues.map((i) => {
    const key = String(i.path[0] ?? "");
    const opt = `--${kebab(key)}`;
    const value = given[key];
    // An empty value (`--max ''`) would otherwise read as 0 or as a wrong choice.
    if (value === "") return `${opt} is empty: give it a value`;
    // `−5` pasted from a document is no number to zod; "must be a number" would not say why.
    const ascii = typeof value === "string" ? typographicNumber(value) : null;
    if (ascii !== null) return `${opt} ${value}: ${NOT_ASCII_DASH} Type ${opt} ${ascii}`;
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
