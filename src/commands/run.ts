import { defineCommand } from "citty";
import { LoopOptions } from "../setup/options.ts";
import { openSpecOptions, reserve, writeStarting } from "../setup/prepare.ts";
import { sourceFromState } from "../setup/plan.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions, plainArg } from "./_args.ts";
import { validate } from "../setup/validate.ts";
import { loopArgs } from "./_loop-args.ts";
import { runInline } from "../run/launch.ts";
import { prepareFromFlags, refuseUnusableLoopFolder } from "../setup/from-flags.ts";
import { describeUntrusted, unsealedCommands, untrustedAdvice } from "../setup/trust.ts";
import { UserError } from "../errors.ts";
import { ScreenFirst } from "../run/screen-first.ts";

const args = {
  task: { type: "positional", required: false, description: "The task, when run directly without `start`" },
  ...loopArgs,
  ...plainArg,
} as const;

export default defineCommand({
  meta: { name: "run" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { plain, ...given } = givenOptions("run", args, rawArgs, a);
    const shown = { plain: plain === true };
    validate(LoopOptions, given); // a mistyped flag is named before anything else is looked at
    // On a terminal the screen opens while the loop is prepared; a refusal closes it before it is printed.
    const first = new ScreenFirst({ ...shown, dryRun: given.dryRun === true });
    try {
      return await prepareAndRun(given, shown, first);
    } catch (err) {
      await first.close();
      throw err;
    }
  }),
});

async function prepareAndRun(given: Record<string, unknown>, shown: { plain: boolean }, first: ScreenFirst): Promise<number> {
  const wt = await resolveWorktree();
  if (given.dryRun !== true) await refuseUnusableLoopFolder(wt, "run");
  const paths = loopPaths(wt.path);
  const state = await readState(paths.state);
  // The loop `start` prepared: its options are in the state, so `run` needs none; its lock was
  // reserved by `start` for this run.
  if (state?.status === "starting" && Object.keys(given).length === 0) {
    // `start` sealed the commands of the state it wrote; a committed `starting` state is not its.
    const unsealed = unsealedCommands(state, paths.state);
    if (unsealed.length) throw new UserError(`${describeUntrusted(unsealed)}\n${untrustedAdvice(unsealed)}`);
    const lock = await reserve(paths, state.started_at, true);
    first.open();
    try {
      const source = await sourceFromState(state, openSpecOptions(wt.path, state.command_timeout_sec, first.warn));
      return await runInline(state, source, lock, { ...shown, first });
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  // A direct run continues nothing: flags over the config files.
  const planned = await prepareFromFlags(wt, given, undefined, "run", { print: first.print, warn: first.warn, trusted: () => first.open() });
  if (typeof planned === "number") {
    await first.close();
    return planned;
  }
  const { prepared } = planned;
  const { lock } = await writeStarting(prepared, "here");
  return runInline(prepared.state, prepared.source, lock, { ...shown, first });
}
