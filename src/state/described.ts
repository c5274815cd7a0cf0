/**
 * `described(schema, text)`: zod's `.describe(text)` without the copy. zod's `describe` clones the
 * schema (builds it a second time) to register the text on the clone; for a schema made by the call
 * right before it (`z.string().describe(…)`), nothing else holds the original, so registering the text
 * on it is the same schema with the same description (the JSON Schemas of `bun run schema` are
 * unchanged, test/fleet/schema.test.ts) for half the building. The state's and the events'
 * hundreds of descriptions were ~28 ms of `run`'s start before its first frame (issue 35).
 *
 * Only for a schema nothing else holds: a shared one (`Tokens`, `Count`) keeps `.describe`, whose copy
 * gives each use its own text. One that already has metadata is copied as zod does.
 */
import { z } from "zod";

export function described<T extends z.ZodType>(schema: T, description: string): T {
  if (z.globalRegistry.has(schema)) return schema.describe(description) as T;
  z.globalRegistry.add(schema, { description });
  return schema;
}
