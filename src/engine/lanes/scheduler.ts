/**
 * `--parallel N` above 1 (docs/parallel.md, "How lanes run"): up to N stories at once, each attempt in its own
 * lane (a linked worktree made from the loop branch's head), judged by the same engine as the sequential loop
 * (attempt.ts); an accepted lane goes through the merge queue into the main worktree, one at a time. The
 * sequential engine (engine.ts) is not this: `--parallel 1` never comes here. This file decides which story runs
 * when and how the loop ends; lane-run.ts is one lane from open to close.
 */
import { assertNever, errorMessage, HarnessError, thenSentence } from "../../errors.ts";
import type { KeptLane } from "../../parallel/ports.ts";
import { readyStories } from "../../parallel/graph.ts";
import type { State } from "../../state/schema.ts";
import { describeStories, isComplete, type Story } from "../../stories/story.ts";
import { budgetReached } from "../../record/budget.ts";
import type { Ending } from "../finish.ts";
import { runLane, type LaneDone, type Tries } from "./lane-run.ts";
import { laneTurns } from "./lane-turns.ts";
import { limitGate } from "../gates/limit-gate.ts";
import type { LoopDeps, ParallelDeps } from "../ports.ts";
import { pauseHere, type Inbox } from "../steer-inbox.ts";
import { storyTurns } from "../story-turn.ts";
import { allComplete, decide } from "../policy.ts";

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
    if (!ending) {
      // The same turn as one after another (policy.ts); what is decided waits for the running lanes to finish.
      const allDone = !running.size && stories.every(isComplete);
      const noAudit = { due: false, note: null } as const; // the audit runs once the lanes are done (engine.ts)
      const now = decide({ at: "turn", stopRequested: deps.signal.aborted, gone, allDone, audit: noAudit, overBudget: budgetReached(state) });
      if (now.kind === "done") return allComplete(stories.length, null);
      if (now.kind === "end") ending = now.ending;
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
        if (working.size >= state.parallel || goOn(state).kind !== "attempt") break;
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
      const limit = goOn(state);
      if (limit.kind === "end") return limit.ending;
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
    const t = tries.get(done.story.id)!;
    if (done.free) {
      // Hit by work integrated after its lane was made: the schedule's doing, not the agent's. The attempt is not
      // counted (its number is given again) nor taken for a stall; the next runs alone on the new head.
      t.attempt--;
      t.reason = done.reason;
      if (!toRunAlone.includes(done.story.id)) toRunAlone.push(done.story.id);
      continue;
    }
    const r = done.result;
    const d = decide({
      at: "attempted",
      story: done.story,
      outcome: r.outcome,
      reason: done.reason ?? null,
      kept: done.integrated,
      progress: done.progress,
      doneCriteria: state.done_criteria,
      attempt: t.attempt,
      maxRetries: state.max_retries,
      noProgress,
      stallThreshold: state.stall_threshold,
    });
    switch (d.kind) {
      case "end":
        ending ??= d.ending;
        break;
      case "accept":
        tries.delete(done.story.id);
        noProgress = 0;
        break;
      case "give-up": {
        noProgress = d.noProgress;
        const waiting = d.tell ? waitingOn(done.story.id, stories, running) : "";
        const reason = waiting ? thenSentence(d.ending.reason, waiting) : d.ending.reason;
        if (d.tell && !ending) deps.store.emit({ type: "Error", message: reason });
        ending ??= { ...d.ending, reason };
        break;
      }
      case "retry":
        noProgress = d.noProgress;
        t.reason = d.reason;
        break;
      default:
        assertNever(d);
    }
  }
}

/**
 * Whether another attempt may start (the iteration limit; a pause is the schedule's to handle). Asked only
 * while a story is left to start, so never "all done": the audit runs after the lanes (engine.ts).
 */
const goOn = (state: State) =>
  decide({ at: "go", pauseRequested: false, iteration: state.current_iteration, maxIterations: state.max_iterations, allDone: false });

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
