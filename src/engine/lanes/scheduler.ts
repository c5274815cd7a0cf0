/**
 * `--parallel N` above 1 (docs/parallel.md, "How lanes run"): up to N stories at once, each attempt in its own
 * lane (a linked worktree made from the loop branch's head), judged by the same engine as the sequential loop
 * (attempt.ts); an accepted lane goes through the merge queue into the main worktree, one at a time. The
 * sequential engine (engine.ts) is not this: `--parallel 1` never comes here. This file decides which story runs
 * when and how the loop ends; lane-run.ts is one lane from open to close.
 */
import { errorMessage, HarnessError, thenSentence } from "../../errors.ts";
import type { KeptLane } from "../../parallel/ports.ts";
import { readyStories } from "../../parallel/graph.ts";
import type { State } from "../../state/schema.ts";
import { describeStories, isComplete, type Story } from "../../stories/story.ts";
import { plural } from "../../text/format.ts";
import { budgetReached } from "../../record/budget.ts";
import type { Ending } from "../finish.ts";
import { runLane, type LaneDone, type Tries } from "./lane-run.ts";
import { laneTurns } from "./lane-turns.ts";
import { limitGate } from "../gates/limit-gate.ts";
import type { LoopDeps, ParallelDeps } from "../ports.ts";
import { pauseHere, type Inbox } from "../steer-inbox.ts";
import { storyTurns } from "../story-turn.ts";

export async function runParallel(state: State, deps: LoopDeps, inbox: Inbox): Promise<Ending> {
  const par = deps.parallel;
  if (!par) throw new HarnessError("wt-loop failed while starting the lanes of --parallel: this build runs no lanes");
  return withKeptLanes(await schedule(state, deps, par, inbox), state, par);
}

/**
 * At the end, no lane open: lane refs whose work the loop branch holds are dropped (a story redone and
 * integrated leaves none behind), the others are named in the reason with how to look at them and delete them.
 */
async function withKeptLanes(ending: Ending, state: State, par: ParallelDeps): Promise<Ending> {
  let kept: KeptLane[];
  try {
    kept = (await par.lanes.tidy?.()) ?? [];
  } catch (err) {
    return { ...ending, reason: thenSentence(ending.reason, `The lanes' refs (refs/wt-loop/…/lane-*) were left as they are: ${errorMessage(err)}`) };
  }
  if (!kept.length) return ending;
  const branch = state.checkpoint_branch ?? "the loop branch";
  const which = kept.map((k) => `story ${k.story_id} attempt ${k.attempt} in ${k.ref}`).join("; ");
  const how = `see one with \`git log -p ${branch}..<ref>\`, delete it with \`git update-ref -d <ref>\``;
  return { ...ending, keptLanes: kept, reason: thenSentence(ending.reason, `Work of lanes that is not on ${branch} is kept: ${which} (${how}).`) };
}

async function schedule(state: State, deps: LoopDeps, par: ParallelDeps, inbox: Inbox): Promise<Ending> {
  // Lanes save from their own steps: the store writes one at a time, each of the state as it is then.
  // A harness failure in one lane ends every other at once; a story that is stuck lets the others finish.
  const inner = new AbortController();
  const signal = AbortSignal.any([deps.signal, inner.signal]);
  const gate = limitGate(deps, signal);
  state.lanes ??= []; // a state made in memory (not parsed) has none yet
  const tries: Tries = new Map();
  const running = new Map<string, Promise<LaneDone>>();
  // Lanes whose agent works (or is about to): N of these at most. A lane waiting for the merge queue or closing
  // holds its story but not a slot, so the next story's agent starts meanwhile.
  const working = new Set<string>();
  let wake = () => {};
  let ending: Ending | null = null;
  let fatal: unknown = null;
  let noProgress = 0;
  // Lanes still running when the loop's ending was decided: their work is good, so they finish and are
  // integrated first, and the reason says what became of each.
  const finishedAfter: string[] = [];
  const turn = storyTurns(state, deps);
  // Stories the schedule made conflict (or fail --verify only once integrated), in that order: each one's next
  // attempt runs alone (lane-turns.ts), one at a time.
  const turns = laneTurns();
  const toRunAlone: string[] = [];

  while (true) {
    const { stories, gone } = await turn(); // the main worktree's tasks file: what is integrated
    if (gone) ending ??= gone;
    if (!ending && !running.size && stories.every(isComplete))
      return { status: "done", reason: stories.length === 1 ? "The 1 story is complete" : `All ${stories.length} stories are complete` };
    if (deps.signal.aborted) ending ??= { status: "stopped", reason: "Stopped by the user" };
    if (!ending) {
      // Spending of every lane counts: once reached no lane opens; the running ones finish.
      const over = budgetReached(state);
      if (over) ending = { status: "stopped", reason: over, stopReason: "budget" };
    }
    if (!ending) {
      await inbox.check();
      if (state.pause_requested && !running.size) {
        await pauseHere(state, deps, inbox);
        continue;
      }
    }
    if (!ending && !state.pause_requested) {
      const integrated = new Set(stories.filter(isComplete).map((s) => s.id));
      const ready = readyStories(stories, integrated, new Set(running.keys()));
      // The first story to run alone goes before the others, once none runs alone; the rest of them wait their turn.
      const next = turns.alone ? undefined : ready.find((s) => s.id === toRunAlone[0]);
      for (const story of next ? [next, ...ready.filter((s) => s !== next)] : ready) {
        if (working.size >= state.parallel || state.current_iteration >= state.max_iterations) break;
        const alone = story === next;
        if (!alone && toRunAlone.includes(story.id)) continue;
        if (alone) turns.hold(toRunAlone.shift()!);
        working.add(story.id);
        const freed = () => {
          working.delete(story.id);
          wake();
        };
        running.set(story.id, runLane(story, { state, deps, par, signal, gate, tries, stories, freed, turns, alone }).finally(freed));
      }
    }
    if (!running.size) {
      if (fatal) throw fatal;
      if (ending) return finishedAfter.length ? { ...ending, reason: thenSentence(ending.reason, finishedFirst(finishedAfter)) } : ending;
      if (state.current_iteration >= state.max_iterations)
        return { status: "stuck", reason: `Reached the maximum of ${plural(state.max_iterations, "iteration")} before the work was done` };
      const waiting = stories.filter((s) => !isComplete(s));
      return {
        status: "stuck",
        reason: `No story can start: ${describeStories(waiting)} wait for prerequisites that are not complete. Check the "(after …)" of their headings.`,
      };
    }
    const slot = new Promise<null>((resolve) => (wake = () => resolve(null)));
    const done = await Promise.race([...running.values(), slot]);
    if (!done) continue; // a lane's agent finished: another story may start while that lane is integrated
    running.delete(done.story.id);
    turns.release(done.story.id); // a lane that ran alone is done: the others integrate again
    await deps.store.save();
    if (ending && ending.status !== "stopped") finishedAfter.push(afterEnding(done));
    if (done.error) {
      fatal ??= done.error;
      inner.abort();
      continue;
    }
    const r = done.result;
    if (r.outcome === "stopped") ending ??= { status: "stopped", reason: "Stopped by the user" };
    else if (r.outcome === "unavailable") ending ??= { status: "stuck", reason: r.reason };
    else if (done.integrated) {
      tries.delete(done.story.id);
      noProgress = 0;
    } else if (done.free) {
      // Hit by work integrated after its lane was made: the schedule's doing, not the agent's. The attempt is not
      // counted (its number is given again) nor taken for a stall; the next runs alone on the new head.
      const t = tries.get(done.story.id)!;
      t.attempt--;
      t.reason = done.reason;
      if (!toRunAlone.includes(done.story.id)) toRunAlone.push(done.story.id);
    } else {
      const t = tries.get(done.story.id)!;
      noProgress = done.progress ? 0 : noProgress + 1;
      const why = done.reason ?? r.outcome;
      if (t.attempt >= state.max_retries) {
        const failed = `Story ${done.story.id} "${done.story.title}" failed after ${plural(t.attempt, "attempt")}. Last reason: ${why}`;
        const waiting = waitingOn(done.story.id, stories, running);
        const reason = waiting ? thenSentence(failed, waiting) : failed;
        if (!ending) deps.store.emit({ type: "Error", message: reason });
        ending ??= { status: "stuck", reason };
      } else if (noProgress >= state.stall_threshold)
        ending ??= { status: "stalled", reason: `No progress in the last ${plural(noProgress, "iteration")} (no new commit, no change in the working tree)` };
      // After no_signal the next attempt starts afresh; every other failure tells it what went wrong.
      t.reason = r.outcome === "no_signal" && !done.integration ? undefined : (done.reason ?? undefined);
    }
  }
}

/** The stories that wait on a failed one (directly or through another) and were not started: they never will be in this run. */
function waitingOn(failed: string, stories: Story[], running: Map<string, unknown>): string {
  const blocked = new Set([failed]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stories) if (!blocked.has(s.id) && !isComplete(s) && (s.after ?? []).some((a) => blocked.has(a))) grew = !!blocked.add(s.id);
  }
  const ids = stories.filter((s) => s.id !== failed && blocked.has(s.id) && !running.has(s.id)).map((s) => s.id);
  if (!ids.length) return "";
  return `${ids.length === 1 ? `Story ${ids[0]} waits` : `Stories ${ids.join(", ")} wait`} on it and ${ids.length === 1 ? "was" : "were"} not started`;
}

function afterEnding(done: LaneDone): string {
  const s = `story ${done.story.id}`;
  if (done.integrated) return `${s} was integrated`;
  return done.kept ? `${s} was not integrated (its work is kept in ${done.kept})` : `${s} was not integrated (it left no work)`;
}

const finishedFirst = (what: string[]) => `The lanes still running then were finished first: ${what.join("; ")}.`;
