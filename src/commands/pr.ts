import { defineCommand } from "citty";
import { pullRequestOfLoop } from "../control/pull-request.ts";
import { print } from "../term/print.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "../args/args.ts";

const args = {} as const;

export default defineCommand({
  meta: { name: "pr" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("pr", args, rawArgs, a);
    print(await pullRequestOfLoop((await resolveWorktree()).path));
  }),
});
