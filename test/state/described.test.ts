// described(): zod's .describe() without the copy, for a schema made just before it; a schema that
// already carries metadata (a shared one described elsewhere) is copied as zod does.
import { expect, test } from "bun:test";
import { z } from "zod";
import { described } from "../../src/state/described.ts";

test("a fresh schema gets the description itself, and JSON Schema shows it", () => {
  const s = z.string();
  const d = described(s, "a name");
  expect(d).toBe(s);
  expect(d.description).toBe("a name");
  expect(z.toJSONSchema(z.object({ name: d })).properties!.name).toMatchObject({ type: "string", description: "a name" });
});

test("a schema that already has a description is copied: each use keeps its own text", () => {
  const shared = described(z.number(), "first");
  const other = described(shared, "second");
  expect(other).not.toBe(shared);
  expect(shared.description).toBe("first");
  expect(other.description).toBe("second");
});

test("it validates as the schema it was given", () => {
  const d = described(z.number().int().nonnegative(), "a count");
  expect(d.safeParse(3).success).toBe(true);
  expect(d.safeParse(-1).success).toBe(false);
});
