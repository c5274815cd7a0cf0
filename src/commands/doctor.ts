import { defineCommand } from "citty";
import { CHECKS } from "../setup/doctor-checks.ts";
import { doctorHere } from "../setup/doctor-here.ts";
import { canStart, diagnose, renderDoctor } from "../setup/doctor.ts";
import { print, printJson } from "../term/print.ts";
import { action, givenOptions } from "./args/args.ts";
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
    const checks = await diagnose(await doctorHere(given), CHECKS);
    if (json) printJson({ ready: canStart(checks), checks });
    else print(renderDoctor(checks));
    return canStart(checks) ? 0 : 1;
  }),
});
