import { defineCommand } from "citty";
import { LoopOptions } from "../loop/options.ts";
import { describePlan } from "../loop/dry-run.ts";
import { openSpecOptions, prepareLoop, writeStarting } from "../loop/prepare.ts";
import { sourceFromState } from "../loop/plan.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions, loopArgs, validate } from "./_args.ts";
import { runInline } from "./_launch.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, when run directly without `start`" },
  ...loopArgs,
} as const;

export default defineCommand({
  meta: { name: "run", description: "Run the loop in this terminal (what `start` opens in the new window)" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const given = givenOptions("run", args, rawArgs, a);
    const opts = validate(LoopOptions, given);
    const wt = await resolveWorktree();
    const state = await readState(loopPaths(wt.path).state);
    // The loop `start` prepared: its options are in the state, so `run` needs none.
    if (state?.status === "starting" && Object.keys(given).length === 0) {
      const source = await sourceFromState(state, openSpecOptions(wt.path, state.command_timeout_sec));
      return runInline(state, source);
    }
    const prepared = await prepareLoop(wt, opts);
    if (opts.dryRun) {
      console.log(describePlan(prepared.state, prepared.plan));
      return 0;
    }
    await writeStarting(prepared);
    return runInline(prepared.state, prepared.source);
  }),
});
