import { defineCommand } from "citty";
import { monitorLoop } from "../run/monitor.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions, plainArg } from "./args/args.ts";

const args = { story: { type: "string", valueHint: "id", description: "Show only this story's messages" }, ...plainArg } as const;

export default defineCommand({
  meta: { name: "monitor" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("monitor", args, rawArgs, a);
    return monitorLoop((await resolveWorktree()).path, { plain: Boolean(a.plain), story: a.story });
  }),
});
