/**
 * `wt-loop run`: continue the loop `start` prepared, or prepare one from the flags and run it here.
 * What runs before the screen opens is loaded first; the loop's preparation and the engine are
 * loaded once the screen is opening, so its first frame does not wait for them (issue 35).
 */
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { prepareFromFlags, refuseUnusableLoopFolder } from "../setup/from-flags.ts";
import { describeUntrusted, unsealedCommands, untrustedAdvice } from "../setup/trust.ts";
import { UserError } from "../errors.ts";
import type { ScreenFirst } from "./screen-first.ts";
import { loopStarted } from "../record/plan-event.ts";
import { loadStories } from "../stories/source.ts";

export async function prepareAndRun(given: Record<string, unknown>, shown: { plain: boolean }, first: ScreenFirst): Promise<number> {
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
    const { reserve, openSpecOptions } = await import("../setup/prepare.ts");
    const lock = await reserve(paths, state.started_at, true);
    first.open();
    try {
      await first.drawn();
      const [{ sourceFromState }, { runInline }] = await Promise.all([import("../setup/plan.ts"), import("./launch.ts")]);
      const source = await sourceFromState(state, openSpecOptions(wt.path, state.command_timeout_sec, first.warn));
      // The plan `start` wrote, listed at once (a file that cannot be read now is the loop's to report).
      const stories = first.wanted ? await loadStories(source).catch(() => null) : null;
      if (stories) first.plan(loopStarted(state, stories));
      return await runInline(state, source, lock, { ...shown, first });
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  // A direct run continues nothing: flags over the config files.
  const planned = await prepareFromFlags(wt, given, undefined, "run", {
    print: first.print,
    warn: first.warn,
    trusted: () => first.open(),
    shown: () => first.drawn(),
    // Listed before the checkpoint's git checks (a refusal among them closes the screen and prints as ever).
    planned: (state, plan) => {
      if (first.wanted) first.plan(loopStarted(state, plan.stories));
    },
  });
  if (typeof planned === "number") {
    await first.close();
    return planned;
  }
  const { prepared } = planned;
  const [{ writeStarting }, { runInline }] = await Promise.all([import("../setup/prepare.ts"), import("./launch.ts")]);
  const { lock } = await writeStarting(prepared, "here");
  return runInline(prepared.state, prepared.source, lock, { ...shown, first });
}
