// The JSON Schemas under schema/ are generated from the zod schemas; these tests fail when the
// committed files drift from the code (fix: `bun run schema` and commit the result).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SCHEMA_FILES, SCHEMA_KINDS, schemaText } from "../../src/setup/json-schema.ts";
import { ROOT, wtLoop } from "../helpers/cli.ts";
import { tempDir } from "../helpers/repo.ts";

describe("wt-loop schema", () => {
  for (const kind of SCHEMA_KINDS)
    test(`the committed ${SCHEMA_FILES[kind]} is what the code generates (run \`bun run schema\` when this fails)`, () => {
      expect(readFileSync(join(ROOT, SCHEMA_FILES[kind]), "utf8")).toBe(schemaText(kind));
    });

  test("the state schema requires every field the spec says other programs depend on, and keeps objects open", () => {
    const s = JSON.parse(schemaText("state"));
    for (const f of [
      "worktree_name",
      "status",
      "current_iteration",
      "max_iterations",
      "started_at",
      "task",
      "iterations",
      "done_criteria",
      "stall_threshold",
      "iteration_timeout_min",
      "total_tokens",
    ])
      expect(s.required).toContain(f);
    expect(s.properties.status.enum).toEqual(["starting", "running", "paused", "done", "stuck", "stalled", "stopped"]);
    expect(JSON.stringify(s)).not.toContain('"additionalProperties":false');
  });

  test("the event schema has one branch per event type, each with ts", () => {
    const s = JSON.parse(schemaText("events"));
    const types = s.oneOf.map((b: any) => b.properties.type.const);
    expect(types).toEqual([
      "LoopStarted",
      "StoryProgress",
      "StoryEvent",
      "IterationEnd",
      "VerifyStart",
      "VerifyEnd",
      "ReviewStart",
      "ReviewEvent",
      "ReviewEnd",
      "AuditStart",
      "AuditEvent",
      "AuditEnd",
      "Error",
      "Complete",
      "Waiting",
      "Watching",
      "Feedback",
      "Paused",
      "Resumed",
      "MaxIterationsChanged",
      "NoteAdded",
      "NotesUsed",
      "Lane",
    ]);
    for (const b of s.oneOf) expect(b.required).toContain("ts");
  });

  test("prints the committed schemas, from any folder; an unknown name is a usage error", async () => {
    const cwd = tempDir();
    const state = await wtLoop(["schema"], { cwd });
    expect(state.code).toBe(0);
    expect(state.stdout).toBe(readFileSync(join(ROOT, SCHEMA_FILES.state), "utf8"));
    const events = await wtLoop(["schema", "events"], { cwd });
    expect(events.stdout).toBe(readFileSync(join(ROOT, SCHEMA_FILES.events), "utf8"));
    const doctor = await wtLoop(["schema", "doctor"], { cwd });
    expect(doctor.stdout).toBe(readFileSync(join(ROOT, SCHEMA_FILES.doctor), "utf8"));
    const receipt = await wtLoop(["schema", "receipt"], { cwd });
    expect(receipt.stdout).toBe(readFileSync(join(ROOT, SCHEMA_FILES.receipt), "utf8"));
    const bad = await wtLoop(["schema", "logs"], { cwd });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("state, events, config, doctor or receipt");
  });
});
