import { defineCommand } from "citty";
import { totalsWithDurations, wallMs } from "../record/totals.ts";
import { loopPaths } from "../state/paths.ts";
import { historyRows, outputWidth, runsTable, totalsLine } from "../term/history-view.ts";
import { resolveWorktree } from "../worktree/worktree.ts";
import { action, givenOptions } from "./args/args.ts";
import { requireState } from "./args/require-state.ts";
import { print, printJson } from "../term/print.ts";

const args = {
  json: { type: "boolean", description: "Print the iterations and totals as JSON (reasons whole)" },
  runs: { type: "boolean", description: "List this worktree's archived runs (for `wt-loop log --run`)" },
} as const;

export default defineCommand({
  meta: { name: "history" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("history", args, rawArgs, a);
    if (a.runs) return listRuns(Boolean(a.json));
    const { state } = await requireState();
    // Each duration read once for the totals and the rows, none kept (iterationMs keeps each: an object
    // and a WeakMap entry, 500 at start-up, to be read back once), in the totals' pass.
    const { totals, ms } = totalsWithDurations(state.iterations);
    if (a.json) {
      printJson({ iterations: state.iterations, totals });
      return;
    }
    if (!state.iterations.length) {
      print(`No iterations yet (status: ${state.status}).`);
      return;
    }
    print(historyRows(state.iterations, outputWidth(), ms).join("\n"));
    print(`\n${totalsLine(totals, state.parallel > 1 ? wallMs(state.iterations) : null)}`);
  }),
});

/** `--runs` only: the run log's module brings the events' zod schemas, which plain `history` need not load. */
async function listRuns(json: boolean): Promise<void> {
  const wt = await resolveWorktree();
  const { archivedRunSummaries } = await import("../record/run-log.ts");
  const runs = await archivedRunSummaries(loopPaths(wt.path));
  if (json) return printJson({ runs });
  if (!runs.length) return print(`No archived runs in ${wt.name} (a run is archived when the next one starts).`);
  print(runsTable(runs, outputWidth()));
  print("\nShow one with `wt-loop log --run <run>`.");
}
