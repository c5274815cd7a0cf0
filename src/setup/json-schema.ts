/**
 * The JSON Schemas of the loop's files, generated from the zod schemas that are the source of truth
 * (`z.toJSONSchema`). `bun run schema` writes them to `schema/`, `wt-loop schema` prints them, and a
 * test fails when the committed files drift from the code.
 */
import { z } from "zod";
import { DoctorReport } from "./doctor.ts";
import { LoggedEvent } from "../record/events.ts";
import { configJsonSchema } from "./config-file.ts";
import { Receipt } from "../record/receipt-schema.ts";
import { generateChecker } from "../state/codegen.ts";
import { SCHEMA_VERSION, State } from "../state/schema.ts";

export const SCHEMA_KINDS = ["state", "events", "config", "doctor", "receipt"] as const;
export type SchemaKind = (typeof SCHEMA_KINDS)[number];

/** Where each schema is committed, relative to the repository root. */
export const SCHEMA_FILES: Record<SchemaKind, string> = {
  state: "schema/loop-state.schema.json",
  events: "schema/loop-event.schema.json",
  config: "schema/wt-loop-config.schema.json",
  doctor: "schema/wt-loop-doctor.schema.json",
  receipt: "schema/wt-loop-receipt.schema.json",
};

const META: Record<SchemaKind, { title: string; description: string }> = {
  state: {
    title: "wt-loop state file (.claude/loop-state.json)",
    description:
      `The loop's state, schema_version ${SCHEMA_VERSION}. Objects are open: a reader ignores fields it does not know, ` +
      "and fields may be added without a new schema_version (a field never changes meaning without one).",
  },
  events: {
    title: "wt-loop event log line (.claude/loop-events.jsonl)",
    description:
      "One line of the append-only event log: an event discriminated on `type`, with `ts` (when it was written). Objects are open, as in the state file.",
  },
  config: {
    title: "wt-loop config file (.wt-loop.json, ~/.config/wt-loop/config.json)",
    description:
      "Loop options, keyed by their long flag names. Flags, then a restart's remembered options, then .wt-loop.json, " +
      "then the user's file win (docs/config.md).",
  },
  doctor: {
    title: "wt-loop doctor --json",
    description: "What a loop in this worktree needs, one entry per check. Objects are open, and checks may be added: a reader ignores ids it does not know.",
  },
  receipt: {
    title: "wt-loop status --json: its `receipt`",
    description:
      "What `wt-loop status --json` adds to the state file under `receipt`: " +
      "each story's attempts, time, tokens and cost, and a running loop's forecast (docs/receipt.md). Objects are open.",
  },
};

export function jsonSchema(kind: SchemaKind): Record<string, unknown> {
  // The config file is closed (an unknown key is a mistake); its schema comes from the options table.
  if (kind === "config") return { $schema: "https://json-schema.org/draft/2020-12/schema", ...META.config, ...configJsonSchema() };
  const schema = kind === "state" ? State : kind === "events" ? LoggedEvent : kind === "receipt" ? Receipt : DoctorReport;
  const generated = z.toJSONSchema(schema, {
    io: "output", // what wt-loop writes: every field present, defaults applied
    // zod closes output objects; the format promises readers that new fields may appear, so keep them open.
    override: (ctx) => {
      if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties;
    },
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, ...META[kind], ...rest };
}

export const schemaText = (kind: SchemaKind) => JSON.stringify(jsonSchema(kind), null, 2) + "\n";

/** The generated validator of the state file (state/codegen.ts), committed like the JSON Schemas. */
export const CHECKER_FILE = "src/state/state-check.gen.ts";
export const checkerText = () =>
  generateChecker(State, { name: "checkState", typeName: "State", typeImport: "./schema.ts", where: "State in src/state/schema.ts" });
