import { defineCommand } from "citty";
import { resumeLoop } from "../control/steer.ts";
import { loopPaths } from "../state/paths.ts";
import { print } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";

export default defineCommand({
  meta: { name: "resume" },
  args: {},
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("resume", {}, rawArgs, a);
    print(await resumeLoop(loopPaths((await resolveWorktree()).path)));
  }),
});
