/**
 * A finished (or running) loop read back from its event log, iteration by iteration: what
 * `wt-loop log` shows. The state file says how each iteration ended; the event log says what the
 * agent did in it.
 */
import { createReadStream, existsSync } from "node:fs";
import { readLines } from "../proc/lines.ts";
import type { Iteration, State } from "../state/schema.ts";
import type { LoopFiles } from "../state/paths.ts";
import { archivedRuns, findRun, type FoundRun } from "../state/run-files.ts";
import { parseLoggedEvent, type Logged } from "./events.ts";

export interface IterationLog {
  n: number;
  story_id: string | null;
  story_title: string | null;
  attempt: number | null;
  /** From the state; null while the iteration is still running. */
  record: Iteration | null;
  events: Logged[];
}

export interface Selection {
  story?: string;
  iteration?: number;
}

/** Reads the run's events (streaming: a log of hundreds of megabytes is not loaded whole) and groups them. */
export async function readRunLog(files: FoundRun, sel: Selection = {}): Promise<IterationLog[]> {
  const byN = new Map<number, IterationLog>();
  const { state } = files;
  for (const it of state.iterations) byN.set(it.n, { n: it.n, story_id: it.story_id, story_title: it.story_title, attempt: it.attempt, record: it, events: [] });
  let current: IterationLog | null = null;
  // No event log (deleted, or never written): the state's record of each iteration is still shown.
  if (existsSync(files.events))
    await readLines(createReadStream(files.events) as unknown as ReadableStream<Uint8Array>, (line) => {
      const e = parseLoggedEvent(line);
      if (!e) return;
      if (files.window && (e.ts < files.window.from || (files.window.until && e.ts > files.window.until))) return;
      if (e.type === "StoryProgress") {
        current = byN.get(e.iteration) ?? { n: e.iteration, story_id: e.story_id, story_title: e.title, attempt: e.attempt, record: null, events: [] };
        byN.set(e.iteration, current);
      }
      if (e.type === "Complete") return; // the run's end: the state's summary says it
      current?.events.push(e);
      if (e.type === "IterationEnd") current = null;
    });
  return [...byN.values()]
    .sort((a, b) => a.n - b.n)
    .filter((i) => (sel.story === undefined || i.story_id === sel.story) && (sel.iteration === undefined || i.n === sel.iteration));
}

/** The run's end, if it ended: the last Complete event is what the final box showed. */
export const runSummary = (s: State) => ({
  started_at: s.started_at,
  ended_at: s.ended_at,
  status: s.status,
  reason: s.reason,
  task: s.task,
  agent: s.agent,
  stories_completed: s.stories_completed,
  stories_total: s.stories_total,
  iterations: s.iterations.length,
});

/** One line per archived run of the worktree, read from its state (null fields where it is unreadable). */
export async function archivedRunSummaries(paths: LoopFiles) {
  const runs = [];
  for (const r of archivedRuns(paths)) {
    const { state: s } = await findRun(paths, r.key).catch(() => ({ state: null }));
    runs.push({ run: r.key, file: r.file, started_at: s?.started_at ?? null, status: s?.status ?? null, iterations: s?.iterations.length ?? null,
      stories: s ? `${s.stories_completed}/${s.stories_total}` : null, reason: s?.reason ?? null });
  }
  return runs;
}
