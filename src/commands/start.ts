import { defineCommand } from "citty";
import { LoopOptions } from "../loop/options.ts";
import { describePlan } from "../loop/dry-run.ts";
import { prepareLoop, writeStarting } from "../loop/prepare.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions, loopArgs, validate } from "./_args.ts";
import { openLoopWindow, runInline } from "./_launch.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, in words (used as the story when there is no tasks.md)" },
  ...loopArgs,
} as const;

export default defineCommand({
  meta: { name: "start", description: "Start a loop in this worktree, in a new terminal window" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const opts = validate(LoopOptions, givenOptions("start", args, rawArgs, a));
    const wt = await resolveWorktree();
    const prepared = await prepareLoop(wt, opts);
    if (opts.dryRun) {
      console.log(describePlan(prepared.state, prepared.plan));
      return 0;
    }
    if (opts.terminal === "inline") {
      const { note, lock } = await writeStarting(prepared, "here");
      if (note) console.log(note);
      return runInline(prepared.state, prepared.source, lock);
    }
    return openLoopWindow(prepared);
  }),
});
