import { defineCommand } from "citty";
import { LoopOptions } from "../loop/options.ts";
import { describePlan } from "../loop/dry-run.ts";
import { prepareLoop, writeStarting } from "../loop/prepare.ts";
import { continueWith } from "../loop/restart.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions, loopArgs, validate } from "./_args.ts";
import { warn } from "../errors.ts";
import { openLoopWindow, runInline } from "./_launch.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, in words (used as the story when there is no tasks.md)" },
  ...loopArgs,
} as const;

export default defineCommand({
  meta: { name: "start", description: "Start a loop in this worktree, in a new terminal window" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const given = givenOptions("start", args, rawArgs, a);
    const wt = await resolveWorktree();
    // After stuck/stalled/stopped a plain start continues with the previous run's options.
    const { options, note: continuing } = continueWith(await readState(loopPaths(wt.path).state), given);
    const opts = validate(LoopOptions, options);
    const prepared = await prepareLoop(wt, opts);
    for (const w of prepared.warnings) warn(w);
    if (continuing) console.log(continuing);
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
