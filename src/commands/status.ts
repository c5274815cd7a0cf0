import { defineCommand } from "citty";
import { action, givenOptions } from "./args/args.ts";
import { requireState } from "./args/require-state.ts";
import { namesLiveRunner } from "../state/final.ts";
import { receiptOf } from "../record/receipt.ts";
import { renderStatus } from "../term/status-view.ts";
import { print, printError, printJson } from "../term/print.ts";
import { readFileSync } from "node:fs";
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
    print(renderStatus(state, Date.now(), undefined, storiesNow(state)));
  }),
});

/**
 * The tasks file as it is now, for the prerequisites of stories not started; none when it cannot be read.
 * Read at once: node:fs/promises is one more module to load at start-up, and its read one more thread.
 */
function storiesNow(state: State): Story[] | undefined {
  if (state.done_criteria !== "tasks" || !state.tasks_file) return undefined;
  try {
    return storiesShown(readFileSync(state.tasks_file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The stories status shows from the file: those with prerequisites (`## 3. CLI (after 1, 2)`) only, so a file
 * that names none anywhere is not parsed (start-up: the parse is ~0.4M instructions in the interpreter).
 */
export const storiesShown = (text: string): Story[] => (/\(\s*after\s/i.test(text) ? parseStories(text) : []);
