/**
 * The loop's flags, as citty reads them, generated from the options table (setup/options.ts). Its own
 * module, apart from args.ts: it loads zod, which `status`, `list` and the other readers of the
 * state file do without (start-up, state/state-check.gen.ts).
 */
import type { ArgsDef } from "citty";
import { FLAGS, helpText, valueHint } from "../../setup/option-table.ts";

export const loopArgs: ArgsDef = Object.fromEntries(
  FLAGS.map((o) => [o.flag, { type: o.kind === "boolean" ? "boolean" : "string", valueHint: valueHint(o), description: helpText(o) }]),
);
