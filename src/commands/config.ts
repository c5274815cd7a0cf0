import { defineCommand } from "citty";
import { configHere, configJson, configText } from "../setup/config-report.ts";
import { print, printJson } from "../term/print.ts";
import { action, givenOptions } from "./args/args.ts";
import { loopArgs } from "./args/loop-args.ts";

// The loop's flags say "what if I gave this": `wt-loop config --max 5` shows the flag winning.
const { "dry-run": _, ...flags } = loopArgs;
const args = { ...flags, json: { type: "boolean", description: "Print the values and where each comes from as JSON" } } as const;

export default defineCommand({
  meta: { name: "config" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { json, ...given } = givenOptions("config", args, rawArgs, a);
    const here = await configHere(given);
    if (json) printJson(configJson(here));
    else print(configText(here));
  }),
});
