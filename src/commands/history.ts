import { defineCommand } from "citty";
import { archivedRunSummaries } from "../loop/run-log.ts";
import { totalsOf } from "../loop/totals.ts";
import { loopPaths } from "../state/paths.ts";
import { historyRows, outputWidth, runsTable, totalsLine } from "../term/history-view.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions } from "./_args.ts";
import { requireState } from "./_state.ts";

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
    const totals = totalsOf(state.iterations);
    if (a.json) {
      console.log(JSON.stringify({ iterations: state.iterations, totals }, null, 2));
      return;
    }
    if (!state.iterations.length) {
      console.log(`No iterations yet (status: ${state.status}).`);
      return;
    }
    console.log(historyRows(state.iterations, outputWidth()).join("\n"));
    console.log(`\n${totalsLine(totals)}`);
  }),
});

async function listRuns(json: boolean): Promise<void> {
  const wt = await resolveWorktree();
  const runs = await archivedRunSummaries(loopPaths(wt.path));
  if (json) return console.log(JSON.stringify({ runs }, null, 2));
  if (!runs.length) return console.log(`No archived runs in ${wt.name} (a run is archived when the next one starts).`);
  console.log(runsTable(runs, outputWidth()));
  console.log("\nShow one with `wt-loop log --run <run>`.");
}
