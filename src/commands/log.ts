import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { runSummary, streamRunLog } from "../record/run-log.ts";
import { loopPaths } from "../state/paths.ts";
import { findRun } from "../state/run-files.ts";
import { stdoutInfo } from "../term/color.ts";
import { iterationJsonPrinter, iterationPrinter, runHeader } from "../term/log-view.ts";
import { useColor } from "../term/render.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";
import { print, printJsonText } from "../term/print.ts";

const args = {
  story: { type: "string", valueHint: "id", description: "Only this story's iterations" },
  iteration: { type: "string", valueHint: "n", description: "Only iteration N" },
  run: { type: "string", valueHint: "started_at", description: "An archived run (see `wt-loop history --runs`) instead of the current or last one" },
  json: { type: "boolean", description: "Print the run and its iterations, with every event, as JSON" },
} as const;

export default defineCommand({
  meta: { name: "log" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("log", args, rawArgs, a);
    if (a.iteration !== undefined && !/^[1-9]\d*$/.test(a.iteration))
      throw new UserError(`--iteration must be an iteration number (1, 2, …), got '${a.iteration}'.`);
    const wt = await resolveWorktree();
    const files = await findRun(loopPaths(wt.path), a.run);
    const sel = { story: a.story, iteration: a.iteration ? Number(a.iteration) : undefined };
    if (a.json) {
      const printer = iterationJsonPrinter(printJsonText, runSummary(files.state));
      await streamRunLog(files, sel, printer);
      printer.finish();
      return;
    }
    print(runHeader(files.state).join("\n"));
    const shown = await streamRunLog(files, sel, iterationPrinter(print, useColor(stdoutInfo()), wt.path));
    if (!shown) {
      const what = a.iteration
        ? `No iteration ${a.iteration}${a.story ? ` of story ${a.story}` : ""}`
        : a.story
          ? `No iteration of story ${a.story}`
          : "No iterations yet";
      print(`\n${what} in this run.`);
      return a.story || a.iteration ? 1 : 0;
    }
  }),
});
