import { defineCommand } from "citty";
import { writeStarting } from "../setup/prepare.ts";
import { loopPaths } from "../state/paths.ts";
import { previousRun } from "../control/liveness.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions, plainArg } from "./args/args.ts";
import { validate } from "../setup/validate.ts";
import { LoopOptions } from "../setup/options.ts";
import { loopArgs } from "./args/loop-args.ts";
import { openLoopWindow, runInline } from "../run/launch.ts";
import { prepareFromFlags, refuseUnusableLoopFolder } from "../setup/from-flags.ts";
import { print, warn } from "../term/print.ts";

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
    const wt = await resolveWorktree();
    if (given.dryRun !== true) await refuseUnusableLoopFolder(wt, "start");
    // A runner that died (kill -9) is recorded stopped first, as `status` would: its loop is then continued.
    const previous = await previousRun(loopPaths(wt.path).state, given.dryRun === true, warn);
    // Flags over the remembered run (a plain start after stuck/stalled/stopped) over the config files.
    const planned = await prepareFromFlags(wt, given, previous, "start");
    if (typeof planned === "number") return planned;
    const { prepared, opts } = planned;
    if (opts.terminal === "inline") {
      const { note, lock } = await writeStarting(prepared, "here");
      if (note) print(note);
      return runInline(prepared.state, prepared.source, lock, shown);
    }
    return openLoopWindow(prepared, shown);
  }),
});
