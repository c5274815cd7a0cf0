import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { SCHEMA_KINDS, schemaText, type SchemaKind } from "../setup/json-schema.ts";
import { action, givenOptions } from "./args/args.ts";
import { write } from "../term/print.ts";

const args = {
  file: {
    type: "positional",
    required: false,
    valueHint: "state|events|config|doctor|receipt",
    description: "Which schema: the state file (default), a line of the event log, the config file, `doctor --json`, or the `receipt` of `status --json`",
  },
} as const;

export default defineCommand({
  meta: { name: "schema" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("schema", args, rawArgs, a);
    const kind = (a.file ?? "state") as SchemaKind;
    if (!SCHEMA_KINDS.includes(kind)) throw new UserError(`wt-loop schema takes state, events, config, doctor or receipt, got '${a.file}'.`);
    write(schemaText(kind));
  }),
});
