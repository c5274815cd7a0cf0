import { defineCommand } from "citty";
import { correctDeadRunner } from "../loop/liveness.ts";
import { action, givenOptions } from "./_args.ts";
import { requireState } from "./_state.ts";
import { renderStatus } from "../term/status-view.ts";
import { print, printError, printJson } from "../term/print.ts";

const args = { json: { type: "boolean", description: "Print the validated state file as JSON" } } as const;

export default defineCommand({
  meta: { name: "status", description: "Show the loop's status in this worktree" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("status", args, rawArgs, a);
    const { path, state } = await requireState({ json: Boolean(a.json) });
    const note = await correctDeadRunner(path, state);
    if (a.json) {
      printJson(state);
      if (note) printError(note);
      return;
    }
    if (note) print(`Note: ${note}\n`);
    print(renderStatus(state));
  }),
});
