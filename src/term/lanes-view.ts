/**
 * What `status` shows of stories in lanes (`--parallel`, docs/parallel.md): a line per open lane, and
 * the stories not started yet with the prerequisites they wait for (those come from the tasks file).
 */
import type { State } from "../state/schema.ts";
import { isComplete, type Story } from "../stories/story.ts";
import { afterLabel } from "../parallel/graph.ts";
import { field, formatDuration, table } from "../text/format.ts";

/** The Story line of a loop with lanes: every story in one, not only the last begun (`current_story`). */
export const storiesInLanes = (s: State) => `${s.stories_completed}/${s.stories_total} complete · in lanes: ${s.lanes.map((l) => l.story_id).join(", ")}`;

/** One row per lane under a header, indented like the last iterations. */
export function laneRows(s: State, now: number, width: number): string[] {
  const f = (text: string) => field(text, width);
  const rows = s.lanes.map((l) => [
    String(l.iteration),
    `${f(l.story_id)}. ${f(l.story_title)}`,
    `${l.attempt}/${s.max_retries}`,
    l.status,
    formatDuration(now - Date.parse(l.started)),
    l.agent_pid ? String(l.agent_pid) : "-",
  ]);
  return table([["#", "story", "attempt", "step", "open for", "agent pid"], ...rows])
    .split("\n")
    .map((l) => `  ${l}`);
}

/**
 * The stories with prerequisites that have not started: not complete, in no lane, no iteration yet.
 * Null when there are none (or the tasks file could not be read).
 */
export function notStartedLine(s: State, stories: Story[] | undefined, width: number): string | null {
  if (!stories) return null;
  // The stories begun are read only when one with prerequisites is left: `status` runs this at start-up,
  // and a loop may have 500 iterations.
  const open: Story[] = [];
  for (const st of stories) if (st.after?.length && !isComplete(st)) open.push(st);
  if (!open.length) return null;
  const begun = new Set<string | null | undefined>([s.current_story?.id]);
  for (const i of s.iterations) begun.add(i.story_id);
  for (const l of s.lanes) begun.add(l.story_id);
  const waiting: Story[] = [];
  for (const st of open) if (!begun.has(st.id)) waiting.push(st);
  if (!waiting.length) return null;
  return `Not started: ${waiting.map((st) => `${field(st.id, width)}. ${field(st.title, width)} (${afterLabel(st)})`).join(" · ")}`;
}
