import { defineCommand } from "citty";
import { LoopOptions } from "../setup/options.ts";
import { action, givenOptions, plainArg } from "./args/args.ts";
import { validate } from "../setup/validate.ts";
import { loopArgs } from "./args/loop-args.ts";
import { ScreenFirst } from "../run/screen-first.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, when run directly without `start`" },
  ...loopArgs,
  ...plainArg,
} as const;

export default defineCommand({
  meta: { name: "run" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { plain, ...given } = givenOptions("run", args, rawArgs, a);
    const shown = { plain: plain === true };
    validate(LoopOptions, given); // a mistyped flag is named before anything else is looked at
    // On a terminal the screen opens while the loop is prepared; a refusal closes it before it is printed.
    const first = new ScreenFirst({ ...shown, dryRun: given.dryRun === true });
    try {
      // Loaded after the screen's library has begun to load: the preparation's modules are not the first frame's.
      const { prepareAndRun } = await import("../run/run-command.ts");
      return await prepareAndRun(given, shown, first);
    } catch (err) {
      await first.close();
      throw err;
    }
  }),
});
