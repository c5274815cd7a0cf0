import { defineCommand } from "citty";
import { layerOptions, withOrigins } from "../setup/config.ts";
import { refuseOptionMistakes } from "../setup/option-mistakes.ts";
import { CHECKS } from "../setup/doctor-checks.ts";
import { canStart, diagnose, renderDoctor, type DoctorInput } from "../setup/doctor.ts";
import { LoopOptions } from "../setup/options.ts";
import { loopPaths } from "../state/paths.ts";
import { readState } from "../state/store.ts";
import { print, printJson } from "../term/print.ts";
import { resolveWorktree, type Worktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";
import { validate } from "../setup/validate.ts";
import { loopArgs } from "./args/loop-args.ts";

// The same options as `start`: doctor checks what that start would use (its agent, its terminal).
const args = {
  task: { type: "positional", required: false, description: "The task, as start takes it (it changes nothing checked)" },
  ...loopArgs,
  json: { type: "boolean", description: "Print the checks as JSON (`wt-loop schema doctor` describes it)" },
} as const;

export default defineCommand({
  meta: { name: "doctor" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    const { json, ...given } = givenOptions("doctor", args, rawArgs, a);
    validate(LoopOptions, given); // a mistyped flag is named first, as start does
    const worktree: Worktree | { error: string } = await resolveWorktree().catch((err: Error) => ({ error: err.message }));
    const input: DoctorInput = { purpose: "doctor", cwd: process.cwd(), env: process.env, worktree, opts: null, layered: null, previous: null };
    if ("error" in worktree) input.opts = validate(LoopOptions, given);
    else {
      // An unreadable state is start's to report; the checks here do not depend on it.
      input.previous = await readState(loopPaths(worktree.path).state).catch(() => null);
      input.layered = layerOptions(worktree.path, given, input.previous);
      input.opts = validate(LoopOptions, input.layered.options);
    }
    // As start: the options' own mistakes are said first (exit 1), then what this machine lacks.
    try {
      refuseOptionMistakes(input.opts);
    } catch (err) {
      throw input.layered ? withOrigins(err, input.layered) : err;
    }
    const checks = await diagnose(input, CHECKS);
    if (json) printJson({ ready: canStart(checks), checks });
    else print(renderDoctor(checks));
    return canStart(checks) ? 0 : 1;
  }),
});
