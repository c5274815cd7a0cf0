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

/** An iteration as the log shows it, before its events. */
export interface IterationHead {
  n: number;
  story_id: string | null;
  story_title: string | null;
  attempt: number | null;
  /** From the state; null while the iteration is still running. */
  record: Iteration | null;
  /** Opened by its StoryProgress event (the first event handed over), not only recorded in the state. */
  announced: boolean;
}

/** Receives the selected iterations in order, each one's events between `begin` and `end`. */
export interface RunLogSink {
  begin(it: IterationHead): void;
  event(e: Logged): void;
  end(it: IterationHead): void;
}

export interface Selection {
  story?: string;
  iteration?: number;
}

/**
 * Reads the run's events and hands each selected iteration to `sink` as it is read: nothing is kept
 * but the iteration being read, so a log of hundreds of megabytes costs no more memory than a small
 * one. Iterations the state records but the event log does not (deleted, never written) are handed
 * over, without events, in their place by number. Returns how many iterations were handed over.
 */
export async function streamRunLog(files: FoundRun, sel: Selection, sink: RunLogSink): Promise<number> {
  const { state } = files;
  const records = new Map(state.iterations.map((it) => [it.n, it]));
  const pendingRecords = [...state.iterations].sort((a, b) => a.n - b.n);
  let count = 0;
  let open: IterationHead | null = null;
  let openSelected = false;
  const selected = (h: IterationHead) => (sel.story === undefined || h.story_id === sel.story) && (sel.iteration === undefined || h.n === sel.iteration);
  const begin = (h: IterationHead) => {
    open = h;
    openSelected = selected(h);
    if (openSelected) (count++, sink.begin(h));
  };
  const close = () => {
    if (open && openSelected) sink.end(open);
    open = null;
  };
  /** The state's iterations numbered below `n` that no event announced: shown where they belong. */
  const recordsBefore = (n: number) => {
    while (pendingRecords.length && pendingRecords[0]!.n < n) {
      const r = pendingRecords.shift()!;
      begin({ n: r.n, story_id: r.story_id, story_title: r.story_title, attempt: r.attempt, record: r, announced: false });
      close();
    }
  };
  if (existsSync(files.events))
    await readLines(createReadStream(files.events) as unknown as ReadableStream<Uint8Array>, (line) => {
      const e = parseLoggedEvent(line);
      if (!e) return;
      if (files.window && (e.ts < files.window.from || (files.window.until && e.ts > files.window.until))) return;
      if (e.type === "StoryProgress" && (open as IterationHead | null)?.n !== e.iteration) {
        close();
        recordsBefore(e.iteration);
        if (pendingRecords[0]?.n === e.iteration) pendingRecords.shift();
        begin({ n: e.iteration, story_id: e.story_id, story_title: e.title, attempt: e.attempt, record: records.get(e.iteration) ?? null, announced: true });
      }
      if (e.type === "Complete" || !open) return; // Complete: the run's end, which the state's summary says
      if (openSelected) sink.event(e);
      if (e.type === "IterationEnd") close();
    });
  close();
  recordsBefore(Infinity);
  return count;
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
