import { defineCommand } from "citty";
import { loopPaths } from "../state/paths.ts";
import { archivedRuns, findRun } from "../state/run-files.ts";
import type { Iteration } from "../state/schema.ts";
import { between, formatCost, formatTotalCost, formatDuration, formatTokens, plural, table, truncate, utcDateTime } from "../term/format.ts";
import { stdoutInfo } from "../term/color.ts";
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
    console.log(
      `\nTotal: ${plural(totals.iterations, "iteration")} · ${formatDuration(totals.duration_ms)} · ${plural(totals.commits, "commit")} · ` +
        `${formatTokens(totals.tokens)} tokens · ${formatTotalCost(totals.cost_usd)} · ${totals.timed_out} timed out` +
        (totals.unavailable_runs ? ` · ${plural(totals.unavailable_runs, "run")} refused by the agent's service, ${formatDuration(totals.waited_ms)} waited` : ""),
    );
  }),
});

async function listRuns(json: boolean): Promise<void> {
  const wt = await resolveWorktree();
  const paths = loopPaths(wt.path);
  const runs = [];
  for (const r of archivedRuns(paths)) {
    const { state: s } = await findRun(paths, r.key).catch(() => ({ state: null }));
    runs.push({ run: r.key, file: r.file, started_at: s?.started_at ?? null, status: s?.status ?? null, iterations: s?.iterations.length ?? null,
      stories: s ? `${s.stories_completed}/${s.stories_total}` : null, reason: s?.reason ?? null });
  }
  if (json) return console.log(JSON.stringify({ runs }, null, 2));
  if (!runs.length) return console.log(`No archived runs in ${wt.name} (a run is archived when the next one starts).`);
  const rows = runs.map((r) => [r.run, r.started_at ? utcDateTime(r.started_at) : "-", r.status ?? "unreadable", String(r.iterations ?? "-"), r.stories ?? "-", r.reason ?? ""]);
  const lines = table([["run", "started", "status", "iterations", "stories", "reason"], ...rows]).split("\n");
  console.log(lines.map((l) => truncate(l, outputWidth())).join("\n"));
  console.log("\nShow one with `wt-loop log --run <run>`.");
}

/** The terminal's width; unlimited when piped (a script gets whole lines). */
const outputWidth = () => {
  const out = stdoutInfo();
  return out.isTTY ? (out.columns ?? 100) : Number.POSITIVE_INFINITY;
};

export function totalsOf(its: Iteration[]) {
  return {
    iterations: its.length,
    duration_ms: its.reduce((a, i) => a + between(i.started, i.ended), 0),
    commits: its.reduce((a, i) => a + i.commits.length, 0),
    tokens: its.reduce((a, i) => a + i.tokens_used, 0),
    cost_usd: its.reduce((a, i) => a + (i.cost_usd ?? 0), 0),
    timed_out: its.filter((i) => i.timed_out).length,
    unavailable_runs: its.reduce((a, i) => a + (i.unavailable?.runs ?? 0), 0),
    waited_ms: its.reduce((a, i) => a + (i.unavailable?.waited_ms ?? 0), 0),
  };
}

/** `--verify`'s column: how the command ended and how long it took ("-" where it did not run). */
const verifyCell = (v: Iteration["verify"]) =>
  !v ? "-" : `${v.timed_out ? "timed out" : v.exit_code === 0 ? "passed" : v.exit_code === null ? "stopped" : `exit ${v.exit_code}`} ${formatDuration(v.duration_ms)}`;

/** One row per iteration; the last column is why an attempt did not complete, the row cut to `width`. */
export function historyRows(its: Iteration[], width = Number.POSITIVE_INFINITY): string[] {
  // The verify column only for loops that ran one (`--verify`: its log file is in `--json`); the
  // `unavailable` column only when the agent's service refused some run (most loops never wait).
  const verified = its.some((i) => i.verify);
  const waited = its.some((i) => i.unavailable);
  const head = ["#", "story", "attempt", "outcome", "started (UTC)", "duration", "commits", "tokens", "cost", "timed out", ...(verified ? ["verify"] : []), ...(waited ? ["unavailable"] : []), "reason"];
  const rows = its.map((i) => [
    String(i.n),
    i.story_id ?? "-",
    String(i.attempt),
    i.outcome,
    utcDateTime(i.started).slice(0, -4),
    formatDuration(between(i.started, i.ended)),
    String(i.commits.length),
    formatTokens(i.tokens_used),
    formatCost(i.cost_usd),
    i.timed_out ? "yes" : "no",
    ...(verified ? [verifyCell(i.verify)] : []),
    ...(waited ? [i.unavailable ? `${i.unavailable.runs}× · ${formatDuration(i.unavailable.waited_ms)} waited` : "-"] : []),
    i.outcome === "complete" ? "" : (i.reason?.replace(/\s+/g, " ") ?? ""),
  ]);
  return table([head, ...rows]).split("\n").map((l) => truncate(l, width));
}
