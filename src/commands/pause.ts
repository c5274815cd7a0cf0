import { defineCommand } from "citty";
import { pauseLoop } from "../control/steer.ts";
import { loopPaths } from "../state/paths.ts";
import { print } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";

export default defineCommand({
  meta: { name: "pause" },
  args: {},
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("pause", {}, rawArgs, a);
    print(await pauseLoop(loopPaths((await resolveWorktree()).path)));
  }),
});
