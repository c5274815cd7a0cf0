import { defineCommand } from "citty";
import { LoopOptions } from "../loop/options.ts";
import { describePlan } from "../loop/dry-run.ts";
import { prepareLoop, writeStarting } from "../loop/prepare.ts";
import { layerOptions, setBy, withOrigins } from "../loop/config.ts";
import { loopPaths } from "../state/paths.ts";
import { previousRun } from "../loop/liveness.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions, validate } from "./_args.ts";
import { loopArgs } from "./_loop-args.ts";
import { openLoopWindow, runInline } from "./_launch.ts";
import { requireTrust } from "./_trust.ts";
import { sealCommands, trustLine, untrustedCommands } from "../loop/trust.ts";
import { print, warn } from "../term/print.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, in words (used as the story when there is no tasks.md)" },
  ...loopArgs,
} as const;

export default defineCommand({
  meta: { name: "start" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const given = givenOptions("start", args, rawArgs, a);
    const wt = await resolveWorktree();
    // A runner that died (kill -9) is recorded stopped first, as `status` would: its loop is then continued.
    const previous = await previousRun(loopPaths(wt.path).state, given.dryRun === true, warn);
    // Flags over the remembered run (a plain start after stuck/stalled/stopped) over the config files.
    const layered = layerOptions(wt.path, given, previous);
    const opts = (() => {
      try {
        return validate(LoopOptions, layered.options);
      } catch (err) {
        throw withOrigins(err, layered);
      }
    })();
    const untrusted = untrustedCommands(layered, opts, previous, loopPaths(wt.path).state);
    if (!opts.dryRun) await requireTrust(untrusted, layered);
    const prepared = await prepareLoop(wt, opts, warn, previous).catch((err) => {
      throw withOrigins(err, layered); // e.g. a remembered agent that is no longer installed
    });
    if (layered.note) print(layered.note);
    if (opts.dryRun) {
      print(describePlan(prepared.state, prepared.plan, setBy(opts, layered.origins), trustLine(layered, untrusted)));
      return 0;
    }
    if (prepared.nothingToDo) {
      print(prepared.nothingToDo);
      return 0;
    }
    prepared.state.commands_seal = sealCommands(prepared.state);
    if (opts.terminal === "inline") {
      const { note, lock } = await writeStarting(prepared, "here");
      if (note) print(note);
      return runInline(prepared.state, prepared.source, lock);
    }
    return openLoopWindow(prepared);
  }),
});
