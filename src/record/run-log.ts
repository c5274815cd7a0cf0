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
  /** `audit`: a round of `--audit` (`attempt` is its round), not an attempt at a story. */
  kind: "story" | "audit";
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

/** An iteration being read: handed to the sink live, or (a lane beside the one handed live) held until its turn. */
interface Reading {
  head: IterationHead;
  selected: boolean;
  /** Its events while another iteration is handed live; null once it is (or when it is not selected). */
  held: Logged[] | null;
  ended: boolean;
  /** A `--parallel` lane's iteration: it ends at its lane's `closed` step, after the merge queue, not at IterationEnd. */
  lane: boolean;
}

/** Events that name the iteration they belong to (a Paused's `iteration` is the one before it). */
const OF_ITERATION = new Set([
  "StoryProgress",
  "IterationEnd",
  "AuditStart",
  "AuditEnd",
  "VerifyStart",
  "VerifyEnd",
  "ReviewStart",
  "ReviewEnd",
  "Waiting",
  "NotesUsed",
  "Lane",
]);

/**
 * Reads the run's events and hands each selected iteration to `sink` as it is read: nothing is kept
 * but the iteration being read, so a log of hundreds of megabytes costs no more memory than a small
 * one. Iterations the state records but the event log does not (deleted, never written) are handed
 * over, without events, in their place by number. Returns how many iterations were handed over.
 *
 * Lanes (`--parallel`) interleave their iterations in the log: an event goes to its iteration (by its
 * number, or by its story: one lane per story at a time), and each iteration is handed over whole, in
 * the order they began — the ones beside the iteration handed live are held until it ends.
 */
export async function streamRunLog(files: FoundRun, sel: Selection, sink: RunLogSink): Promise<number> {
  const { state } = files;
  const records = new Map(state.iterations.map((it) => [it.n, it]));
  const pendingRecords = [...state.iterations].sort((a, b) => a.n - b.n);
  const announced = new Set<number>();
  let count = 0;
  let lanes = false;
  const reading = new Map<number, Reading>();
  /** Selected iterations not yet handed over, in the order they began; the first is handed live. */
  const queue: Reading[] = [];
  /** Lane steps of an iteration before its StoryProgress (`opened`). */
  const early = new Map<number, Logged[]>();
  const selected = (h: IterationHead) => (sel.story === undefined || h.story_id === sel.story) && (sel.iteration === undefined || h.n === sel.iteration);
  const handOver = () => {
    while (queue[0]) {
      const r = queue[0];
      if (r.held !== null) {
        sink.begin(r.head);
        for (const e of r.held) sink.event(e);
        r.held = null;
      }
      if (!r.ended) return;
      sink.end(r.head);
      queue.shift();
    }
  };
  const begin = (h: IterationHead, lane = false) => {
    const r: Reading = { head: h, selected: selected(h), held: [], ended: false, lane };
    reading.set(h.n, r);
    if (!r.selected) return r;
    count++;
    queue.push(r);
    handOver();
    return r;
  };
  const deliver = (r: Reading, e: Logged) => {
    if (!r.selected) return;
    if (r.held) r.held.push(e);
    else sink.event(e);
  };
  const close = (r: Reading) => {
    r.ended = true;
    reading.delete(r.head.n);
    if (r.selected) handOver();
  };
  /** The state's iterations numbered below `n` that no event announced: shown where they belong. */
  const recordsBefore = (n: number) => {
    while (pendingRecords.length && pendingRecords[0]!.n < n) {
      const r = pendingRecords.shift()!;
      if (announced.has(r.n)) continue;
      close(
        begin({
          n: r.n,
          story_id: r.story_id,
          story_title: r.story_title,
          attempt: r.audit ? r.audit.round : r.attempt,
          kind: r.kind ?? "story",
          record: r,
          announced: false,
        }),
      );
    }
  };
  /** Which open iteration an event is part of; null: none (between iterations). */
  const target = (e: Logged): Reading | null => {
    if (OF_ITERATION.has(e.type) && "iteration" in e) return reading.get(e.iteration) ?? null;
    const first = reading.values().next().value ?? null; // one after another: the only one
    if (reading.size < 2 || !("story_id" in e)) return first; // a loop's own message (an error): with the earliest begun
    for (const r of reading.values()) if (r.head.story_id === e.story_id) return r;
    return null;
  };
  if (existsSync(files.events))
    await readLines(createReadStream(files.events) as unknown as ReadableStream<Uint8Array>, (line) => {
      const e = parseLoggedEvent(line);
      if (!e) return;
      if (files.window && (e.ts < files.window.from || (files.window.until && e.ts > files.window.until))) return;
      if (e.type === "Lane" && !reading.has(e.iteration)) {
        lanes = true;
        if (e.step === "opened") early.set(e.iteration, [e]);
        return; // a lane given up before its agent began: no iteration to show it in
      }
      if (e.type === "StoryProgress" && !reading.has(e.iteration)) {
        const lane = early.has(e.iteration);
        // One after another, a new iteration ends the one before (whose end a killed runner never wrote); in
        // lanes, a new attempt at a story ends its earlier one (one lane per story at a time).
        for (const r of [...reading.values()]) if (!lane || r.head.story_id === e.story_id) close(r);
        if (!lanes) recordsBefore(e.iteration);
        announced.add(e.iteration);
        const r = begin(
          {
            n: e.iteration,
            story_id: e.story_id,
            story_title: e.title,
            attempt: e.attempt,
            kind: "story",
            record: records.get(e.iteration) ?? null,
            announced: true,
          },
          lane,
        );
        deliver(r, e); // the iteration's heading first, then its lane's step that came before it
        for (const before of early.get(e.iteration) ?? []) deliver(r, before);
        early.delete(e.iteration);
        return;
      }
      if (e.type === "AuditStart" && !reading.has(e.iteration)) {
        // An audit round (`--audit`) is an iteration of its own, without a story; the loop runs nothing beside it.
        for (const r of [...reading.values()]) close(r);
        if (!lanes) recordsBefore(e.iteration);
        announced.add(e.iteration);
        const title = `Audit (round ${e.round})`;
        deliver(
          begin({
            n: e.iteration,
            story_id: null,
            story_title: title,
            attempt: e.round,
            kind: "audit",
            record: records.get(e.iteration) ?? null,
            announced: true,
          }),
          e,
        );
        return;
      }
      if (e.type === "Complete") return; // the run's end, which the state's summary says
      const r = target(e);
      if (!r) return;
      deliver(r, e);
      if ((e.type === "IterationEnd" && !r.lane) || (e.type === "Lane" && e.step === "closed") || (e.type === "AuditEnd" && e.final)) close(r);
    });
  for (const r of [...reading.values()]) close(r);
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
    runs.push({
      run: r.key,
      file: r.file,
      started_at: s?.started_at ?? null,
      status: s?.status ?? null,
      iterations: s?.iterations.length ?? null,
      stories: s ? `${s.stories_completed}/${s.stories_total}` : null,
      reason: s?.reason ?? null,
    });
  }
  return runs;
}
