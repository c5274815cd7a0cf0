import { defineCommand } from "citty";
import { action, givenOptions } from "../args/args.ts";
import { requireState } from "../args/require-state.ts";
import { namesLiveRunner } from "../state/final.ts";
import { receiptOf } from "../record/receipt.ts";
import { renderStatus } from "../term/status-view.ts";
import { print, printError, printJson } from "../term/print.ts";
import { readFile } from "node:fs/promises";
import type { State } from "../state/schema.ts";
import { parseStories, type Story } from "../stories/story.ts";

const args = { json: { type: "boolean", description: "Print the validated state file as JSON, with the receipt under `receipt`" } } as const;

export default defineCommand({
  meta: { name: "status", description: "Show the loop's status in this worktree" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("status", args, rawArgs, a);
    const { path, state } = await requireState({ json: Boolean(a.json) });
    // The process checks load only for a state whose runner could have died (start-up).
    const note = namesLiveRunner(state) ? await (await import("../control/liveness.ts")).correctDeadRunner(path, state) : null;
    if (a.json) {
      printJson({ ...state, receipt: receiptOf(state) }); // the receipt: docs/receipt.md, `wt-loop schema receipt`
      if (note) printError(note);
      return;
    }
    if (note) print(`Note: ${note}\n`);
    print(renderStatus(state, Date.now(), undefined, await storiesNow(state)));
  }),
});

/** The tasks file as it is now, for the prerequisites of stories not started; none when it cannot be read. */
async function storiesNow(state: State): Promise<Story[] | undefined> {
  if (state.done_criteria !== "tasks" || !state.tasks_file) return undefined;
  return readFile(state.tasks_file, "utf8").then(
    (text) => parseStories(text),
    () => undefined,
  );
}
