import { defineCommand } from "citty";
import { LoopOptions } from "../loop/options.ts";
import { describePlan } from "../loop/dry-run.ts";
import { openSpecOptions, prepareLoop, reserve, writeStarting } from "../loop/prepare.ts";
import { sourceFromState } from "../loop/plan.ts";
import { layerOptions, setBy, withOrigins } from "../loop/config.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions, validate } from "./_args.ts";
import { loopArgs } from "./_loop-args.ts";
import { runInline } from "./_launch.ts";
import { requireTrust } from "./_trust.ts";
import { describeUntrusted, sealCommands, trustLine, unsealedCommands, untrustedAdvice, untrustedCommands } from "../loop/trust.ts";
import { UserError } from "../errors.ts";
import { print, warn } from "../term/print.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, when run directly without `start`" },
  ...loopArgs,
} as const;

export default defineCommand({
  meta: { name: "run" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const given = givenOptions("run", args, rawArgs, a);
    validate(LoopOptions, given); // a mistyped flag is named before anything else is looked at
    const wt = await resolveWorktree();
    const paths = loopPaths(wt.path);
    const state = await readState(paths.state);
    // The loop `start` prepared: its options are in the state, so `run` needs none; its lock was
    // reserved by `start` for this run.
    if (state?.status === "starting" && Object.keys(given).length === 0) {
      // `start` sealed the commands of the state it wrote; a committed `starting` state is not its.
      const unsealed = unsealedCommands(state, paths.state);
      if (unsealed.length) throw new UserError(`${describeUntrusted(unsealed)}\n${untrustedAdvice(unsealed)}`);
      const lock = await reserve(paths, state.started_at, true);
      try {
        const source = await sourceFromState(state, openSpecOptions(wt.path, state.command_timeout_sec, warn));
        return runInline(state, source, lock);
      } catch (err) {
        lock.release();
        throw err;
      }
    }
    // A direct run continues nothing: flags over the config files.
    const layered = layerOptions(wt.path, given, null);
    const opts = (() => {
      try {
        return validate(LoopOptions, layered.options);
      } catch (err) {
        throw withOrigins(err, layered);
      }
    })();
    const untrusted = untrustedCommands(layered, opts, null, paths.state);
    if (!opts.dryRun) await requireTrust(untrusted, layered);
    const prepared = await prepareLoop(wt, opts, warn).catch((err) => {
      throw withOrigins(err, layered); // e.g. an agent a config file names that is not installed
    });
    if (opts.dryRun) {
      print(describePlan(prepared.state, prepared.plan, setBy(opts, layered.origins), trustLine(layered, untrusted)));
      return 0;
    }
    if (prepared.nothingToDo) {
      print(prepared.nothingToDo);
      return 0;
    }
    prepared.state.commands_seal = sealCommands(prepared.state);
    const { lock } = await writeStarting(prepared, "here");
    return runInline(prepared.state, prepared.source, lock);
  }),
});
