/**
 * Where a run's record is: the current run (the state file and the event log) or an archived one
 * (`loop-runs/<runKey>.json`, its events beside it: paths.ts `runFiles`). `wt-loop log` and
 * `history --runs` find runs only through this module.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { runFiles, runKey, type LoopFiles } from "./paths.ts";
import type { State } from "./schema.ts";
import { readState } from "./store.ts";

export interface FoundRun {
  state: State;
  /** The run's event log. */
  events: string;
  /** A log shared with other runs: keep only the events between `from` and `until`. */
  window: { from: string; until: string | null } | null;
  archived: boolean;
}

export function archivedRuns(paths: LoopFiles): { key: string; file: string }[] {
  if (!existsSync(paths.runs)) return [];
  return readdirSync(paths.runs)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ key: f.slice(0, -".json".length), file: join(paths.runs, f) }));
}

/** The current (or last) run, or the archived run that started at `run` (its `started_at`, colons or dashes). */
export async function findRun(paths: LoopFiles, run?: string): Promise<FoundRun> {
  const current = await readState(paths.state);
  if (!run || (current && runKey(current.started_at) === runKey(run))) {
    if (!current) throw new UserError(`No loop has run here yet (no ${paths.state}). Start one with \`wt-loop start\`.`);
    return { state: current, events: paths.events, window: { from: current.started_at, until: null }, archived: false };
  }
  const key = runKey(run);
  const found = archivedRuns(paths).find((r) => r.key === key);
  if (!found) {
    const known = archivedRuns(paths).map((r) => r.key);
    throw new UserError(
      `No archived run started at ${run}. ${known.length ? `Archived runs: ${known.join(", ")}.` : "There are no archived runs."} ` +
        `List them with \`wt-loop history --runs\`.`,
    );
  }
  const state = await readArchived(found.file);
  const own = runFiles(paths, state.started_at).archivedEvents;
  if (existsSync(own)) return { state, events: own, window: null, archived: true };
  // Runs archived before their logs were: their events are in the shared log, by time.
  return { state, events: paths.events, window: { from: state.started_at, until: state.ended_at ?? state.updated_at }, archived: true };
}

/** An archived state: its own worktree check does not apply (the file is not at `.claude/loop-state.json`). */
async function readArchived(file: string): Promise<State> {
  const { checkState } = await import("./state-check.gen.ts");
  const r = checkState(
    await Bun.file(file)
      .json()
      .catch(() => null),
  );
  if (!r.ok) throw new UserError(`The archived run ${file} is not a loop state wt-loop can read.`);
  return r.value;
}
