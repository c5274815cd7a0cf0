import { defineCommand } from "citty";
import { prepareAndStart } from "../run/start-command.ts";
import { LoopOptions } from "../setup/options.ts";
import { validate } from "../setup/validate.ts";
import { action, givenOptions, plainArg } from "./args/args.ts";
import { loopArgs } from "./args/loop-args.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, in words (used as the story when there is no tasks.md)" },
  ...loopArgs,
  ...plainArg,
} as const;

export default defineCommand({
  meta: { name: "start" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { plain, ...given } = givenOptions("start", args, rawArgs, a);
    const shown = { plain: plain === true };
    validate(LoopOptions, given); // a mistyped flag is named before anything else is looked at, as run and doctor do
    return prepareAndStart(given, shown);
  }),
});
