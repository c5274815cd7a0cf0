import { defineCommand } from "citty";
import { pullRequestOfLoop } from "../control/pull-request.ts";
import { print } from "../term/print.ts";
import { clockTime } from "../text/format.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";

const args = {} as const;

export default defineCommand({
  meta: { name: "pr" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("pr", args, rawArgs, a);
    const onWait = (until: number, reason: string) => print(`${reason}: waiting until ${clockTime(until)} (Ctrl-C stops; \`wt-loop pr\` later goes on).`);
    print(await pullRequestOfLoop((await resolveWorktree()).path, { onWait }));
  }),
});
