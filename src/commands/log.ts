import { defineCommand } from "citty";
import { relative } from "node:path";
import { UserError } from "../errors.ts";
import { readRunLog, runSummary, type IterationLog } from "../loop/run-log.ts";
import { loopPaths } from "../state/paths.ts";
import { findRun } from "../state/run-files.ts";
import { between, formatDuration, plural, utcDateTime } from "../term/format.ts";
import { stdoutInfo } from "../term/color.ts";
import { renderEvent, useColor } from "../term/render.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions } from "./_args.ts";

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
    if (a.iteration !== undefined && !/^[1-9]\d*$/.test(a.iteration)) throw new UserError(`--iteration must be an iteration number (1, 2, …), got '${a.iteration}'.`);
    const wt = await resolveWorktree();
    const files = await findRun(loopPaths(wt.path), a.run);
    const its = await readRunLog(files, { story: a.story, iteration: a.iteration ? Number(a.iteration) : undefined });
    if (a.json) {
      console.log(JSON.stringify({ run: runSummary(files.state), iterations: its.map(asJson) }, null, 2));
      return;
    }
    const s = files.state;
    const color = useColor(stdoutInfo());
    console.log(
      `Run started ${utcDateTime(s.started_at)} · ${s.status} · ${s.stories_completed}/${s.stories_total} stories · ` +
        `${plural(s.iterations.length, "iteration")} · ${formatDuration(between(s.started_at, s.ended_at))}`,
    );
    console.log(`Task: ${s.task.split("\n")[0]}`);
    if (s.reason) console.log(`Reason: ${s.reason}`);
    if (!its.length) {
      const what = a.iteration ? `No iteration ${a.iteration}${a.story ? ` of story ${a.story}` : ""}` : a.story ? `No iteration of story ${a.story}` : "No iterations yet";
      console.log(`\n${what} in this run.`);
      return a.story || a.iteration ? 1 : 0;
    }
    for (const it of its) console.log(renderIteration(it, color, wt.path).join("\n"));
  }),
});

function renderIteration(it: IterationLog, color: boolean, worktree: string): string[] {
  const lines = it.events.flatMap((e) => renderEvent(e, { color }));
  if (!it.events.some((e) => e.type === "StoryProgress"))
    lines.unshift("", `━━ iteration ${it.n} · story ${it.story_id ?? "-"}. ${it.story_title ?? ""} · attempt ${it.attempt ?? "-"}`);
  const r = it.record;
  if (r && !it.events.some((e) => e.type === "IterationEnd"))
    lines.push(`  ◆ iteration ${it.n}: outcome ${r.outcome} · ${formatDuration(between(r.started, r.ended))}`, ...(r.reason ? [`    reason: ${r.reason}`] : []));
  if (!it.events.some((e) => e.type === "StoryEvent")) lines.push("  (no agent events in the event log)");
  if (!r) lines.push("  (still running)");
  if (r?.log_file) lines.push(`  raw agent output: ${relative(worktree, r.log_file) || r.log_file}`);
  return lines;
}

const asJson = (it: IterationLog) => ({
  n: it.n,
  story_id: it.story_id,
  story_title: it.story_title,
  attempt: it.attempt,
  outcome: it.record?.outcome ?? null,
  reason: it.record?.reason ?? null,
  started: it.record?.started ?? null,
  ended: it.record?.ended ?? null,
  log_file: it.record?.log_file ?? null,
  events: it.events,
});
