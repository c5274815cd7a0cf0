/**
 * `--parallel`: one lane from open to close (docs/parallel.md, "How lanes run"). The lane is recorded in the
 * state before it is made (so a restart after kill -9 finds it), the attempt runs in it as in the worktree
 * (attempt.ts, its site the lane: its worktree, its iteration, its agent's pid), an accepted
 * attempt is committed in the lane and integrated by the merge queue, and the lane is closed whatever happened.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import type { LaneTurns } from "./lane-turns.ts";
import { errorMessage, HarnessError } from "../../errors.ts";
import type { Integration } from "../../parallel/ports.ts";
import { laneTag, runTag } from "../../proc/contain.ts";
import { type Iteration, type Lane, type State } from "../../state/schema.ts";
import type { StorySource } from "../../stories/source.ts";
import type { Story } from "../../stories/story.ts";
import { attemptStory, blankAttempt, recordIteration, type AttemptResult } from "../attempt.ts";
import { harnessStep } from "../harness.ts";
import { storyBegins } from "../story-turn.ts";
import type { LimitGate, LoopDeps, ParallelDeps } from "../ports.ts";
import { runVerify, verifyLogOf } from "../gates/verify.ts";
import { windowTitle } from "../../text/window-title.ts";

/** Attempts per story in this run, and the reason the next one is given. */
export type Tries = Map<string, { attempt: number; reason?: string }>;

export interface LaneDone {
  story: Story;
  result: AttemptResult["result"];
  progress: boolean;
  integrated: boolean;
  integration?: Integration;
  /** Why the story goes again (the attempt's, or the merge queue's). */
  reason?: string;
  /** Not integrated for work integrated after the lane was made: the attempt is not counted, the next runs alone. */
  free?: boolean;
  /** The ref that keeps the lane's work not integrated (null when there was none). */
  kept?: string | null;
  error?: unknown;
}

export interface LaneContext {
  state: State;
  deps: LoopDeps;
  par: ParallelDeps;
  signal: AbortSignal;
  gate: LimitGate;
  tries: Tries;
  stories: Story[];
  /** The lane's agent is done (its attempt judged): its slot is free for another story while it is integrated. */
  freed: () => void;
  turns: LaneTurns;
  /** This attempt runs alone (lane-turns.ts): made once no integration is under way, integrated before any other. */
  alone: boolean;
}

export async function runLane(story: Story, c: LaneContext): Promise<LaneDone> {
  const { state, deps, par } = c;
  const t = c.tries.get(story.id) ?? { attempt: 0 };
  c.tries.set(story.id, t);
  const attempt = ++t.attempt;
  // Taken before any await: two lanes never share an iteration number.
  const n = ++state.current_iteration;
  const index = c.stories.indexOf(story) + 1;
  const out: LaneDone = { story, result: { outcome: "no_signal", reason: "" }, progress: false, integrated: false };
  let lane: Lane | null = null;
  let rec: Iteration | null = null;
  let started: Date | null = null; // when the attempt began (it may throw before it is recorded)
  const step = (s: "opened" | "queued" | "integrating" | "integrated" | "conflict" | "verify_failed" | "closed", more: object = {}) =>
    deps.store.emit({
      type: "Lane",
      story_id: story.id,
      iteration: n,
      attempt,
      step: s,
      worktree: lane!.worktree,
      commits: [],
      paths: [],
      reason: null,
      ...more,
    });
  try {
    // A limit in force: lanes not yet started wait with the others (one account, one wait).
    if (!(await c.gate.pass())) {
      out.result = { outcome: "stopped", reason: "Stopped by the user" };
      return out;
    }
    if (c.alone) await c.turns.settled(c.signal);
    const base = await harnessStep("reading the loop branch's head", () => par.queue.head());
    const plan = par.lanes.plan(story.id, attempt, base);
    lane = {
      ...plan,
      story_title: story.title,
      iteration: n,
      attempt,
      status: "opening",
      agent_pid: null,
      agent_started: null,
      started: new Date().toISOString(),
    };
    state.lanes.push(lane);
    await deps.store.save();
    await harnessStep("opening a lane", () => par.lanes.open(plan));
    lane.status = "running";
    step("opened");
    storyBegins(state, deps, story, { n, index, total: c.stories.length, attempt });
    deps.setTitle(windowTitle(state.worktree_name, `${n}/${state.max_iterations}`, state.lanes.length));
    await deps.store.save();
    const laneDeps: LoopDeps = {
      ...deps,
      checkpoint: par.checkpointIn(plan),
      source: laneSource(deps.source, state.worktree_path, plan.worktree),
      signal: c.signal,
      limits: c.gate,
      runTag: laneTag(runTag(state.worktree_path, state.started_at), story.id, attempt),
    };
    started = new Date();
    // The lane's own site: its worktree, and its agent's pid recorded in the lane (every lane has its own agent).
    // Everything else it shares with the loop: its settings, the notes, the wait, the tree held for a reviewer.
    const site = { loop: state, worktree: lane.worktree, iteration: n, agent: lane };
    const it = await attemptStory({ ...site, story, index, total: c.stories.length, attempt, retryReason: t.reason }, laneDeps);
    // As one after another (engine.ts): the user's branches an agent moved from its lane are put back,
    // not left at its commits once the lane is closed (the agent's commits stay in their reflog).
    if (it.violation) {
      const notes = await harnessStep("putting back the branches the agent moved", () => laneDeps.checkpoint.revert());
      if (notes.length && it.result.outcome === "rejected")
        it.result = { ...it.result, reason: `${it.result.reason}. wt-loop put back what the agent moved: ${notes.join("; ")}` };
    }
    rec = recordIteration(state, deps, it, { n, started, story, attempt });
    c.freed();
    Object.assign(out, { result: it.result, progress: it.progress, reason: "reason" in it.result ? it.result.reason : undefined });
    await deps.store.save();
    if (!it.accepted) return out;
    lane.status = "queued";
    step("queued");
    await deps.store.save();
    lane.status = "integrating";
    step("integrating");
    await deps.store.save();
    const leave = await c.turns.enter(story.id, c.signal);
    const got = await harnessStep("integrating a lane", () => par.queue.integrate(lane!, verifier(state, deps, n))).finally(leave);
    out.integration = got;
    if (got.kind === "integrated") {
      out.integrated = true;
      step("integrated", { commits: got.commits });
    } else {
      out.reason = got.reason;
      out.free = got.meanwhile;
      const why = got.meanwhile ? `${got.reason} ${NOT_COUNTED}` : got.reason;
      // Its work never reached the loop branch: `history`, the receipt's ✓ and the forecast must not count it complete.
      Object.assign(rec, { outcome: "rejected", reason: why, done_check: false });
      step(got.kind, { reason: got.reason, ...(got.kind === "conflict" ? { paths: got.paths } : {}) });
    }
    return out;
  } catch (err) {
    // The lane's folder went while the attempt ran (another lane's agent ran `git worktree remove` on it): that
    // attempt is over, not the loop. It is recorded as rejected and the story goes again in a fresh lane.
    if (lane && started && !rec && !c.signal.aborted && !existsSync(lane.worktree)) {
      const reason =
        `The lane's folder ${lane.worktree} was removed while the attempt ran (by another agent's \`git worktree remove\`?), ` +
        `so the attempt could not be judged. The story goes again in a fresh lane: do it there.`;
      Object.assign(out, { result: { outcome: "rejected", reason }, reason });
      recordIteration(state, deps, lostAttempt(reason, started), { n, started, story, attempt });
      c.freed();
      return out;
    }
    const error = err instanceof HarnessError ? err : new HarnessError(`wt-loop failed in the lane of story ${story.id}: ${errorMessage(err)}`, { cause: err });
    out.error = error;
    // Accepted in its lane but never integrated (the queue failed): as after a conflict, not counted complete.
    if (rec?.outcome === "complete" && !out.integrated)
      Object.assign(rec, { outcome: "rejected", reason: `Not integrated: ${error.message}`, done_check: false });
    return out;
  } finally {
    if (lane) await closeLane(c, lane, out, step);
  }
}

const NOT_COUNTED = "(Not counted as an attempt: the work integrated after this lane was made caused it; the story's next attempt runs alone on the new head.)";

/** An attempt whose lane vanished under it: what it did is gone with the folder (its spending is not known). */
const lostAttempt = (reason: string, started: Date): AttemptResult => blankAttempt({ outcome: "rejected", reason }, null, Date.now() - started.getTime());

/** Closed whatever happened (work not integrated is kept under a ref by `close`); a failure here is the harness's. */
async function closeLane(c: LaneContext, lane: Lane, out: LaneDone, step: (s: "closed") => void): Promise<void> {
  try {
    lane.status = "closing";
    lane.agent_pid = lane.agent_started = null;
    await c.deps.store.save();
    out.kept = await c.par.lanes.close(lane, { integrated: out.integrated });
    c.state.lanes = c.state.lanes.filter((l) => l !== lane);
    step("closed");
    await c.deps.store.save();
  } catch (err) {
    out.error ??= new HarnessError(`wt-loop failed while closing the lane of story ${lane.story_id}: ${errorMessage(err)}`, { cause: err });
  }
}

/** `--verify` again on the integrated tree, in the main worktree: a lane's pass says nothing of the work beside it. */
function verifier(state: State, deps: LoopDeps, n: number) {
  const command = state.verify;
  if (!command) return null;
  return async (): Promise<{ ok: true } | { ok: false; reason: string }> => {
    const logFile = verifyLogOf(deps.paths.iterLog(n)).replace(/\.verify\.log$/, ".integrated.verify.log");
    const v = await runVerify({
      command,
      timeoutMin: state.verify_timeout_min,
      cwd: state.worktree_path,
      env: deps.env,
      signal: deps.signal,
      logFile,
      runTag: runTag(state.worktree_path, state.started_at),
      sandbox: deps.sandbox,
    });
    if (v.verdict === "passed") return { ok: true };
    if (v.verdict === "stopped") return { ok: false, reason: "Stopped by the user during the verify command after integration" };
    return { ok: false, reason: `After integration with the stories finished meanwhile: ${v.reason}` };
  };
}

/** The lane's own tasks file: the agent ticks boxes there, and the box check reads them there. */
function laneSource(source: StorySource, main: string, lane: string): StorySource {
  return source.kind === "manual" ? source : { ...source, tasksFile: join(lane, relative(main, source.tasksFile)) };
}
