// docs/reference/ is generated from the zod schemas' descriptions; these tests fail when the committed
// pages drift from the code (fix: `bun run schema` and commit the result).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REFERENCE_FILES, referenceText } from "../../scripts/docs-reference.ts";
import { jsonSchema } from "../../src/setup/json-schema.ts";
import { ROOT } from "../helpers/cli.ts";

describe("the generated reference docs", () => {
  for (const kind of ["state", "events"] as const)
    test(`the committed ${REFERENCE_FILES[kind]} is what the schemas generate (run \`bun run schema\` when this fails)`, () => {
      expect(readFileSync(join(ROOT, REFERENCE_FILES[kind]), "utf8")).toBe(referenceText(kind));
    });

  test("every field of the state file has a row with a meaning", () => {
    const page = referenceText("state");
    const state = jsonSchema("state") as { properties: Record<string, { description?: string }> };
    for (const [key, field] of Object.entries(state.properties)) {
      expect(field.description ?? "").not.toBe("");
      expect(page).toContain(`| \`${key}\` |`);
    }
    expect(page).not.toMatch(/\|\s*\|\n/); // no row ends with an empty meaning
  });

  test("every event type, and every type of agent event, has a section with a description", () => {
    const page = referenceText("events");
    const events = jsonSchema("events") as { oneOf: { properties: Record<string, any> }[] };
    const agent = events.oneOf.find((b) => b.properties.event)!.properties.event.oneOf as { properties: Record<string, any> }[];
    for (const b of [...events.oneOf, ...agent]) {
      expect(b.properties.type.description ?? "").not.toBe("");
      expect(page).toMatch(new RegExp(`^#{2,3} ${b.properties.type.const}\\n\\n${b.properties.type.description.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}`, "m"));
    }
    expect(page).not.toMatch(/\|\s*\|\n/);
  });
});
