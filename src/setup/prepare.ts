/**
 * Everything `start` (and a direct `run`) checks before a loop may begin, in the order a user
 * would want to hear about problems; nothing is written until all of it passes. The options' own
 * mistakes (setup/option-mistakes.ts), then what `doctor` checks (the agent's and the reviewer's
 * programs, the sandbox's tools, the loop's folder, a terminal: setup/doctor.ts), were refused before this.
 */
import { dirname } from "node:path";
import { describeIoError, io, UserError } from "../errors.ts";
import { link, mkdir, unlink, writeFile } from "node:fs/promises";
import { loopPaths, type LoopFiles } from "../state/paths.ts";
import { acquireLock, adoptLock, type Lock } from "../state/lock.ts";
import { endRunLeftovers } from "../proc/contain.ts";
import { hasOwnRunner } from "../proc/pid.ts";
import type { State } from "../state/schema.ts";
import { archiveRun, readState, writeState } from "../state/store.ts";
import { previousRun } from "../control/liveness.ts";
import { recoverLanes } from "../control/lane-recovery.ts";
import { uncheckedStory } from "../state/ending.ts";
import { ensureExcluded } from "../checkpoint/exclude.ts";
import { Git } from "../checkpoint/git.ts";
import { resumeAfterDeadRunner, stashesLeftBy, userWorkLeftBy } from "../checkpoint/resume.ts";
import { putBackHeld } from "../checkpoint/held-after-kill.ts";
import { checkpointPreflight } from "../checkpoint/strategy.ts";
import type { StorySource } from "../stories/source.ts";
import type { Worktree } from "../worktree/worktree.ts";
import type { LoopOptions } from "./options.ts";
import { initialState, makePlan, finishedPlanNote, maxTooSmallNote, type Plan } from "./plan.ts";
import { carriedFrom, refuseSpent } from "../record/budget.ts";
import { refuseOptionMistakes } from "./option-mistakes.ts";
import { rememberedOptions } from "./restart.ts";
import { storiesOf } from "../record/receipt.ts";
import { refuseParallelConflicts } from "../parallel/requirements.ts";
import { prPreflight } from "../github/pull-request.ts";
import { outwaitingRateLimit, startupWait } from "../github/rate-wait.ts";
import { takePrFeedback } from "./pr-feedback-step.ts";

/** A `starting` state this young may belong to a `run` that is still opening in its new window. */
const STARTING_GRACE_MS = 60_000;

export interface Prepared {
  state: State;
  source: StorySource;
  plan: Plan;
  previous: State | null;
  /** Set when the plan has no work (every story complete): the caller writes nothing and says this. */
  finishedPlanNote: string | null;
}

export const openSpecOptions = (
  cwd: string,
  commandTimeoutSec: number,
  warn: (message: string) => void,
  signal?: AbortSignal,
  env?: Record<string, string | undefined>,
) => ({
  cwd,
  timeoutMs: commandTimeoutSec * 1000,
  signal,
  warn,
  env,
});

/**
 * `warn` is told what the user should know as it is found (this module writes nothing to the
 * terminal): at once, because a refusal further on (a spent budget) must not swallow a note about
 * what was already done (a dead runner's cleanup finished). `known`: the previous run as the caller
 * already read it with `previousRun` (`start` layers its options over it); else it is read here.
 * `planned`: told the loop's first state and its plan as soon as they are made, before the git checks
 * that may still refuse it (`run` lists the stories on its screen meanwhile: issue 35).
 */
export async function prepareLoop(
  wt: Worktree,
  opts: LoopOptions,
  warn: (message: string) => void,
  known?: State | null,
  planned?: (state: State, plan: Plan) => void,
): Promise<Prepared> {
  const previous = known !== undefined ? known : await previousRun(loopPaths(wt.path).state, opts.dryRun, warn);
  // The options alone first (callers other than start and run come through here too); the machine's
  // side (the agent's and the reviewer's programs, the sandbox's tools) is doctor's (setup/from-flags.ts).
  refuseOptionMistakes(opts);
  // A dry run touches nothing, so it may preview a loop while another runs or a merge is open.
  if (!opts.dryRun) {
    refuseIfRunning(previous);
    // A runner that died without its state noticing: end what its agent left behind first.
    if (previous?.status === "running" || previous?.status === "paused") await endRunLeftovers(previous.worktree_path, previous.started_at);
    const git = new Git({ cwd: wt.path, timeoutMs: opts.commandTimeout * 1000 });
    // A runner that died mid-cleanup (or left git's index.lock) is finished first: the refusals below would trip on it.
    const completing = previous?.completing;
    for (const note of await resumeAfterDeadRunner(git, previous)) warn(note);
    // The auditor or the reviewer was running when the runner died: what it changed is put back before anything reads the tree.
    if (previous?.held) {
      const note = await putBackHeld(git, previous.held, previous.held.by);
      if (note) warn(note);
      previous.held = null;
      await writeState(loopPaths(wt.path).state, previous); // at once: a refusal below must not have it put back again later
    }
    // Lanes a dead runner left open (--parallel): their agents were ended above (the run's tag); now their worktrees.
    for (const note of await recoverLanes(git, previous)) warn(note);
    // Recorded at once, as `stop` does: a refusal below (a spent budget) must not leave a state that
    // says the cleanup is unfinished, or that the work is on the branch it deleted.
    if (previous && completing) await writeState(loopPaths(wt.path).state, previous);
  }
  // `--pr N`: its failing checks and requested changes are appended to the loop's tasks file first, as stories.
  if (opts.pr !== undefined) await takePrFeedback(wt.path, opts, previous, warn);
  const plan = await makePlan(wt.path, opts, openSpecOptions(wt.path, opts.commandTimeout, warn));
  refuseParallelConflicts({ ...opts, done: plan.doneCriteria }, opts.done === undefined && plan.tasksFile === null);
  const state = initialState(wt, opts, plan);
  // A restart that continues the loop continues its budget: what the earlier runs spent counts.
  const continues = rememberedOptions(previous) !== null;
  state.spent_before = carriedFrom(previous, continues);
  // …and its receipt: attempts and costs per story survive the restart (record/receipt.ts).
  state.earlier_stories = previous && continues ? storiesOf(previous) : [];
  // `--pr N` pushes again and updates that pull request at the end.
  if (opts.pr !== undefined) state.on_complete = "pr";
  // …and its pull request (`--on-complete pr`): the next push and update go to that one.
  state.pull_request = previous && continues ? (previous.pull_request ?? null) : null;
  // The ticks of an attempt cut short before its check are still in the tree: that story goes first.
  state.unchecked_story = previous ? uncheckedStory(previous) : null;
  if (state.checkpoint === "stash") state.checkpoint_stashes = stashesLeftBy(previous);
  state.user_work = userWorkLeftBy(previous);
  refuseSpent(state);
  // A loop that continues with --audit and every story complete has its audit still to run (a kill during it, a stop).
  const auditLeft = continues && state.audit && previous?.status !== "done";
  const idle = auditLeft ? null : finishedPlanNote(plan, wt.path, state.unchecked_story);
  const tooFew = idle ? null : maxTooSmallNote(plan, state.max_iterations);
  if (tooFew) warn(tooFew);
  if (!opts.dryRun && !idle) {
    planned?.(state, plan);
    const git = new Git({ cwd: wt.path, timeoutMs: opts.commandTimeout * 1000 });
    for (const w of await checkpointPreflight(git, state.checkpoint, state.change ?? state.worktree_name)) warn(w);
    // `--on-complete pr`: a remote, gh's login and the right to push, refused now rather than after hours of work.
    // GitHub's rate limit is waited out here as at the end (within --max-wait), not taken for a refusal.
    if (state.on_complete === "pr") {
      const ctx = { cwd: wt.path, timeoutMs: opts.commandTimeout * 1000 };
      const checked = { ...state, original_branch: await git.branch() };
      await outwaitingRateLimit(ctx, opts.maxWait, "start again", startupWait(warn), () => prPreflight(git, ctx, checked));
    }
  }
  return { state, source: plan.source, plan, previous, finishedPlanNote: idle };
}

export function refuseIfRunning(previous: State | null): void {
  if (!previous) return;
  if ((previous.status === "running" || previous.status === "paused") && hasOwnRunner(previous))
    throw new UserError(
      `A loop is already ${previous.status} in ${previous.worktree_name} (runner pid ${previous.runner_pid}). ` +
        `Follow it with \`wt-loop monitor\`${previous.status === "paused" ? ", go on with `wt-loop resume`" : ""}, or stop it with \`wt-loop stop\`.`,
    );
  if (previous.completion_pending && hasOwnRunner(previous))
    throw new UserError(
      `The loop in ${previous.worktree_name} ended ${previous.status} and its completion question is waiting (runner pid ${previous.runner_pid}). ` +
        "Answer it in the loop's window, or with `wt-loop stop` (keep) or `wt-loop stop --cleanup`, then start again.",
    );
  if (previous.status === "starting" && Date.now() - Date.parse(previous.updated_at) < STARTING_GRACE_MS)
    throw new UserError(
      `A loop is being started in ${previous.worktree_name} (started ${previous.updated_at}). ` +
        "Wait for it, follow it with `wt-loop monitor`, or try again in a minute if its window never opened.",
    );
}

/**
 * Takes the worktree's lock (one runner per worktree), then archives the previous run's record and
 * writes the new loop's `starting` state. A loser of the lock writes nothing. `window`: the lock is
 * handed over to the `run` that `start` opens (see state/lock.ts).
 */
export async function writeStarting(p: Prepared, mode: "here" | "window"): Promise<{ note: string | null; lock: Lock }> {
  const paths = loopPaths(p.state.worktree_path);
  const lock = await reserve(paths, p.state.started_at);
  try {
    if (mode === "window") lock.handOver();
    // Read again under the lock: another start may have finished a whole run since prepareLoop.
    p.previous = await readState(paths.state);
    refuseIfRunning(p.previous);
    let note: string | null = null;
    if (p.previous) {
      const dest = await archiveRun(paths, p.previous);
      note =
        p.previous.status === "running" || p.previous.status === "paused"
          ? `The previous loop's runner (pid ${p.previous.runner_pid}) had died; its record was kept as ${dest}.`
          : `The previous loop's record was kept as ${dest}.`;
    }
    // Excluded before the first file appears, so `git status` never shows the loop's files.
    await ensureExcluded(new Git({ cwd: p.state.worktree_path, timeoutMs: p.state.command_timeout_sec * 1000 }));
    // Stories from an issue: their tasks file, now that every check has passed (github/issue-source.ts).
    if (p.plan.write) await writeNewFile(p.plan.write.path, p.plan.write.text);
    await writeState(paths.state, p.state);
    return { note, lock };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Written whole (temp file, then a link that fails when the file exists): a file already there keeps its ticks. */
async function writeNewFile(path: string, text: string): Promise<void> {
  await io("create", dirname(path), () => mkdir(dirname(path), { recursive: true }));
  const temp = `${path}.${process.pid}.tmp`;
  await io("write", temp, () => writeFile(temp, text));
  try {
    await link(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new UserError(describeIoError(err, "write", path) ?? String(err));
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** The lock for the loop `start` prepared (`run` in the new window), or for a loop `run` prepared itself. */
export async function reserve(paths: LoopFiles, run: string, adopt = false): Promise<Lock> {
  if (adopt) {
    const adopted = adoptLock(paths.lock, run);
    if (adopted) return adopted;
  }
  const got = acquireLock(paths.lock, run, dirname(dirname(paths.state)));
  if ("lock" in got) return got.lock;
  const state = await readState(paths.state).catch(() => null);
  refuseIfRunning(state);
  throw new UserError(
    `Another loop holds ${paths.lock} (pid ${got.holder?.pid ?? "unknown"}): one loop runs per worktree. Nothing was written. ` +
      "Follow it with `wt-loop monitor`, or stop it with `wt-loop stop`.",
  );
}
