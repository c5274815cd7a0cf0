/**
 * What `start` and a direct `run` share before a loop is written: the flags layered over the
 * remembered run and the config files, validated (a bad value names where it came from), the trust
 * gate, the plan. A dry run, and a plan with nothing left to do, end here with their exit code.
 */
import { layerOptions, setBy, withOrigins } from "./config.ts";
import { diagnose, lineText, refuseUnready } from "./doctor.ts";
import { LOOP_FOLDER_CHECK } from "./loop-folder-check.ts";
import { LoopOptions } from "./options.ts";
import { refuseOptionMistakes } from "./option-mistakes.ts";
import type { Prepared } from "./prepare.ts";
import type { Plan } from "./plan.ts";
import { sealCommands, trustLine, untrustedCommands } from "./trust.ts";
import { loopPaths } from "../state/paths.ts";
import type { State } from "../state/schema.ts";
import { print, printError, warn } from "../term/print.ts";
import { ExitCode, UserError } from "../errors.ts";
import type { Worktree } from "../worktree/worktree.ts";
import { validate } from "./validate.ts";

/** Before the previous run is read from the loop's folder: refused with doctor's `.claude` line when it cannot be used. */
export async function refuseUnusableLoopFolder(wt: Worktree, purpose: "start" | "run"): Promise<void> {
  const input = { purpose, cwd: wt.path, env: process.env, worktree: wt, opts: null, layered: null, previous: null };
  refuseUnready(await diagnose(input, [LOOP_FOLDER_CHECK]));
}

/** Where the preparation speaks: `run` holds it while its screen is already open (_screen-first.ts). */
export interface PrepareOutput {
  print(text: string): void;
  warn(message: string): void;
  /** Nothing more will be asked on the terminal (called once or twice: at once when nothing is untrusted, and after the trust question). */
  trusted(): void;
  /** Resolves when what `trusted` began to show is shown (`run`'s screen): the plan's work waits for it. */
  shown?(): Promise<void>;
  /** The plan is read and the loop's first state made; git's checks of the checkpoint still to come (prepareLoop). */
  planned?(state: State, plan: Plan): void;
}

/**
 * `previous`: the run `start` read (and corrected), whose options a plain start continues; undefined
 * for a direct `run`, which continues nothing (prepareLoop still reads it, to refuse a live runner).
 */
export async function prepareFromFlags(
  wt: Worktree,
  given: Record<string, unknown>,
  previous: State | null | undefined,
  purpose: "start" | "run",
  out: PrepareOutput = { print, warn, trusted: () => {} },
): Promise<{ prepared: Prepared; opts: LoopOptions } | number> {
  const layered = layerOptions(wt.path, given, previous ?? null);
  const opts = (() => {
    try {
      return validate(LoopOptions, layered.options);
    } catch (err) {
      throw withOrigins(err, layered);
    }
  })();
  // The options' own mistakes first: a missing program must not hide a flag mistake (setup/option-mistakes.ts).
  try {
    refuseOptionMistakes(opts);
  } catch (err) {
    throw withOrigins(err, layered); // e.g. a --max-cost set in a config file, with a remembered agent
  }
  const untrusted = untrustedCommands(layered, opts, previous ?? null, loopPaths(wt.path).state);
  // Nothing to ask: `run` may open its screen now; the checks and the plan below are loaded and made
  // once its first frame is drawn (one thread runs both: issue 35). A refusal closes the screen first.
  if (!untrusted.length && !opts.dryRun) {
    out.trusted();
    await out.shown?.();
  }
  // What `doctor` checks, refused with the line it shows: before the trust question and the plan.
  const { CHECKS } = await import("./doctor-checks.ts");
  const ready = await diagnose({ purpose, cwd: wt.path, env: process.env, worktree: wt, opts, layered, previous: previous ?? null }, CHECKS);
  // A dry run shows the plan even so (a newcomer sees it before installing the agent), then the refusals.
  if (!opts.dryRun)
    try {
      refuseUnready(ready);
    } catch (err) {
      throw withOrigins(err, layered); // e.g. a remembered or configured agent that is not installed
    }
  // The question's module (and node:readline) only when there is something to ask: not on `run`'s way to its first frame.
  if (!opts.dryRun && untrusted.length) await (await import("./ask-trust.ts")).requireTrust(untrusted, layered);
  out.trusted();
  // Loaded and run once `run`'s screen is drawn: its first frame does not wait for them (issue 35).
  await out.shown?.();
  const { prepareLoop } = await import("./prepare.ts");
  const prepared = await prepareLoop(wt, opts, out.warn, previous, out.planned).catch((err) => {
    throw withOrigins(err, layered); // e.g. a remembered or configured agent that is not installed
  });
  if (layered.note) out.print(layered.note);
  if (opts.dryRun) {
    const { describePlan } = await import("./dry-run.ts");
    print(describePlan(prepared.state, prepared.plan, setBy(opts, layered.origins), trustLine(layered, untrusted)));
    const refusals = ready.filter((l) => l.mark === "fail");
    if (!refusals.length) return 0;
    // Each as a start says it: with where a remembered or configured option came from.
    const said = refusals.map((l) => `  ✗ ${l.id}: ${(withOrigins(new UserError(lineText(l)), layered) as Error).message}`);
    printError(["A real start would refuse:", ...said].join("\n"));
    return ExitCode.usage;
  }
  if (prepared.finishedPlanNote) {
    out.print(prepared.finishedPlanNote);
    return 0;
  }
  prepared.state.commands_seal = sealCommands(prepared.state);
  return { prepared, opts };
}
