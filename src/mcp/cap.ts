/**
 * An MCP answer goes into a client's context (a model's, often): a state whose task is 50 MB made
 * `loop_status` answer 105 MB in 49 s. Every tool's answer is capped: the longest strings are cut
 * until its JSON fits, and `capped` names the fields cut and where their whole values are.
 */
import { z } from "zod";
import { truncate } from "../text/format.ts";

/** The most one answer's JSON text may hold, in characters. */
export const ANSWER_CAP = 256 * 1024;
/** Each string longer than these (tried in turn) is cut, until the answer fits. */
const STRING_LIMITS = [16_384, 2_048, 256, 64];
/** How many cut fields an answer names. */
const NAMED = 50;

export const Capped = z
  .object({
    fields: z.array(z.string()).describe(`the fields whose values were cut (a path: state.task, iterations.3.reason); at most ${NAMED} named`),
    rest: z.string().describe("where the whole values are"),
  })
  .nullable()
  .describe(`null when the answer is whole; else it was cut to stay under ${ANSWER_CAP / 1024} KB`);

export function capAnswer<T extends Record<string, unknown>>(value: T, rest: string, cap = ANSWER_CAP): T & { capped: z.infer<typeof Capped> } {
  // The JSON of a 50 MB value is not made just to learn that it is too big: its strings are counted first.
  if (stringChars(value) < cap && JSON.stringify(value).length <= cap) return { ...value, capped: null };
  let cut: { value: T; fields: string[] } = { value, fields: [] };
  for (const limit of STRING_LIMITS) {
    const fields: string[] = [];
    cut = { value: cutStrings(value, limit, rest, "", fields) as T, fields };
    if (JSON.stringify(cut.value).length <= cap) break;
  }
  const named = cut.fields.slice(0, NAMED);
  if (cut.fields.length > NAMED) named.push(`… and ${cut.fields.length - NAMED} more`);
  return { ...cut.value, capped: { fields: named, rest } };
}

function cutStrings(v: unknown, limit: number, rest: string, path: string, fields: string[]): unknown {
  if (typeof v === "string") {
    if (v.length <= limit) return v;
    fields.push(path);
    return truncate(v, limit, { rest });
  }
  if (Array.isArray(v)) return v.map((x, i) => cutStrings(x, limit, rest, join(path, String(i)), fields));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutStrings(x, limit, rest, join(path, k), fields)]));
  return v;
}

function stringChars(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + stringChars(x), 0);
  if (v && typeof v === "object") return Object.values(v).reduce((n: number, x) => n + stringChars(x), 0);
  return 0;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
