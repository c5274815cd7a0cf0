/** What `log` shows of a run: its summary lines, then each iteration's events as the loop's window showed them. */
import { relative } from "node:path";
import type { IterationLog } from "../loop/run-log.ts";
import { runTimeMs, storiesKnown } from "../state/run-time.ts";
import type { State } from "../state/schema.ts";
import { between, field, formatDuration, plural, utcDateTime } from "./format.ts";
import { fieldWidth } from "./history-view.ts";
import { inertDeep } from "./inert.ts";
import { renderEvent } from "./render.ts";

/** The fields of the state are bounded (`field`): `log --json` has them whole. */
export function runHeader(state: State, width = fieldWidth()): string[] {
  const s = inertDeep(state);
  const ran = runTimeMs(s);
  return [
    `Run started ${utcDateTime(s.started_at)} · ${s.status} · ${storiesKnown(s) ? `${s.stories_completed}/${s.stories_total}` : "unknown"} stories · ` +
      `${plural(s.iterations.length, "iteration")} · ${ran === null ? "run time unknown" : formatDuration(ran)}`,
    `Task: ${field(s.task, width)}`,
    ...(s.reason ? [`Reason: ${field(s.reason, width)}`] : []),
  ];
}

export function renderIteration(iteration: IterationLog, color: boolean, worktree: string, width = fieldWidth()): string[] {
  const it = inertDeep(iteration); // renderEvent makes its events inert again: a no-op, nothing is copied
  const lines = it.events.flatMap((e) => renderEvent(e, { color }));
  if (!it.events.some((e) => e.type === "StoryProgress"))
    lines.unshift("", `━━ iteration ${it.n} · story ${field(it.story_id ?? "-", width)}. ${field(it.story_title ?? "", width)} · attempt ${it.attempt ?? "-"}`);
  const r = it.record;
  if (r && !it.events.some((e) => e.type === "IterationEnd"))
    lines.push(`  ◆ iteration ${it.n}: outcome ${r.outcome} · ${formatDuration(between(r.started, r.ended))}`, ...(r.reason ? [`    reason: ${field(r.reason, width)}`] : []));
  if (!it.events.some((e) => e.type === "StoryEvent")) lines.push("  (no agent events in the event log)");
  if (!r) lines.push("  (still running)");
  if (r?.log_file) lines.push(`  raw agent output: ${relative(worktree, r.log_file) || r.log_file}`);
  return lines;
}

/** An iteration as `log --json` prints it. */
export const iterationJson = (it: IterationLog) => ({
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
