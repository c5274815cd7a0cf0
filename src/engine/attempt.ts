/**
 * One attempt at one story (docs/how-it-works.md): the prompt, the agent run (waiting out an unavailable
 * service), the promise, then the harness's verdict — box check, --verify, --review — and the work kept
 * or not. Shared by the sequential engine (engine.ts, in the worktree) and the scheduler of --parallel
 * (lanes/lane-run.ts, in a lane): both run exactly this, so a lane's attempt is the same engine. It takes its
 * own context (the story, the iteration, where it runs, where its agent's pid goes), not the loop's state:
 * what happens after it is the policy's (policy.ts), and recording it is the caller's (`recordIteration`).
 */
import { runAgent } from "../agents/run-agent.ts";
import { remeasured, type Changes } from "../checkpoint/strategy.ts";
import { errorMessage, HarnessError, thenSentence } from "../errors.ts";
import { loopRoot, writeRecordSafe } from "../proc/safe-fs.ts";
import { diffFileOf, promptFileOf } from "../state/paths.ts";
import { CommandError } from "../proc/spawn.ts";
import { addTokens, sumTokens, ZERO_TOKENS, type AgentName, type Iteration, type State } from "../state/schema.ts";
import { isComplete, missingFromPlan, type Story } from "../stories/story.ts";
import { agentGone, agentRunOptions, type RunSite } from "./agent-run.ts";
import type { LoopDeps } from "./ports.ts";
import { classify, type Classified } from "./outcome.ts";
import { buildPrompt } from "./prompt.ts";
import { verifyClaim } from "./gates/verify.ts";
import { reviewClaim } from "./gates/review.ts";
import { boxCheck } from "./gates/box-check.ts";
import { runWhenAvailable, type Spent } from "./gates/unavailable.ts";
import { modelFor } from "./model-choice.ts";
import { adapterFor } from "../agents/registry.ts";
import { storyAgent } from "../agents/story-agent.ts";

/** What the tree shows after the attempt (checkpoint/strategy.ts Changes: its progress, commits, files…), and the verdict. */
export interface AttemptResult extends Changes {
  result: Classified | { outcome: "rejected"; reason: string };
  accepted: boolean;
  done: boolean;
  tokens: State["tokens"];
  cost: number | null;
  turns: number | null;
  exitCode: number | null;
  durationMs: number;
  /** The model asked for (engine/model-choice.ts); null: the agent's own. */
  model: string | null;
  /** The agent its story's heading named, when another than the loop's (agents/story-agent.ts); absent: the loop's. */
  agent?: AgentName;
  verify?: Iteration["verify"];
  review?: Iteration["review"];
  /** Runs the agent's service refused before this one (not attempts), and the time waited. */
  waits?: Iteration["unavailable"];
  /** Where the attempt's diff was written (before its work was kept or reverted); absent: no file changed, or not measured. */
  diffFile?: string;
  /** Kept with `--done tasks`: the stories as its tree has them (the loop's counts, when that tree is the loop's). */
  stories?: Story[];
}

/** What one attempt works with: where it runs (the loop's worktree or a lane, its iteration, where its agent's pid goes), and which attempt at which story. */
export interface AttemptContext extends RunSite {
  story: Story;
  /** The story's place in the plan (from 1) and the plan's size, for the prompt. */
  index: number;
  total: number;
  /** This story's attempts in this run, this one included. */
  attempt: number;
  /** What the last attempt got wrong; none: this one starts afresh. */
  retryReason?: string;
}

/** An attempt that has done nothing yet: no work, no spending; what it becomes is filled in as it runs. */
export const blankAttempt = (result: AttemptResult["result"], model: string | null, durationMs = 0): AttemptResult => ({
  result,
  accepted: false,
  done: false,
  progress: false,
  commits: [],
  violation: null,
  deletedIgnored: [],
  files: [],
  tokens: { ...ZERO_TOKENS },
  cost: null,
  turns: null,
  exitCode: null,
  durationMs,
  model,
});

/** One agent run on one story, then the harness's verdict. Never throws for a failed attempt. */
export async function attemptStory(at: AttemptContext, deps: LoopDeps): Promise<AttemptResult> {
  const { checkpoint } = deps;
  const { loop, story } = at;
  const res = blankAttempt({ outcome: "no_signal", reason: "" }, modelFor(loop, story, at.attempt));
  const agent = storyAgent(loop, story);
  if (agent.other) res.agent = agent.name;
  const t0 = performance.now();
  let step = "taking the checkpoint"; // what the harness was doing, for the reason of a harness failure
  try {
    // Every write of the state brings the checkpoint's info up to date (engine.ts, `beforeSave`).
    await checkpoint.ensure(story.id, () => deps.store.write());
    // The user's notes go to this prompt only; the event says which iteration carried them.
    const notes = loop.notes.splice(0).map((n) => n.text);
    if (notes.length) deps.store.emit({ type: "NotesUsed", iteration: at.iteration, notes });
    await deps.store.write("if-restart-differs"); // the checkpoint is in the state before the agent may touch anything
    const prompt = buildPrompt({
      worktree: at.worktree,
      task: loop.task,
      source: deps.source,
      story,
      index: at.index,
      total: at.total,
      learningsFile: deps.paths.learnings,
      retryReason: at.retryReason,
      attempt: at.attempt,
      maxRetries: loop.max_retries,
      verify: loop.verify,
      review: loop.review,
      notes,
    });
    const logPath = deps.paths.iterLog(at.iteration);
    // Kept so a person can read what the agent was told (the screen's Prompt tab, `cat`).
    step = "recording the prompt";
    writeRecordSafe(loopRoot(logPath), promptFileOf(logPath), prompt);
    step = "running the agent";
    // Another agent than the loop's waits for its own service alone: the loop agent's usage limit is not its.
    const gate = agent.other ? { ...deps, limits: undefined } : deps;
    const avail = await runWhenAvailable(loop, gate, { storyId: story.id, iteration: at.iteration, attempt: at.attempt, logPath }, () =>
      runAgent(
        agent.other ? adapterFor(agent.name) : deps.adapter,
        { prompt, model: res.model, agentCmd: agent.cmd },
        agentRunOptions(at, deps, {
          logPath,
          timeoutMin: loop.iteration_timeout_min,
          onEvent: (event) => deps.store.emit({ type: "StoryEvent", story_id: story.id, event }),
        }),
      ).finally(() => agentGone(at.agent)),
    );
    const run = avail.run;
    res.waits = avail.waits;
    Object.assign(res, {
      exitCode: run.exitCode,
      tokens: run.done?.tokens ?? res.tokens,
      cost: run.done?.cost_usd ?? null,
      turns: run.done?.turns ?? null,
    });
    addRefusedSpending(res, avail.refusedSpent);
    res.result = avail.halt ? { outcome: "unavailable", reason: avail.halt } : classify(run, loop.iteration_timeout_min);
    if (res.result.outcome === "stopped" || res.result.outcome === "unavailable") return res;
    // An agent that emptied info/exclude would have the loop's own files snapshotted, committed or
    // cleaned as if they were its work; one that ran `git clean -fdx` deleted them.
    step = "putting back the loop's own files";
    await deps.reclaimFiles();
    // Progress is measured before any revert (docs/how-it-works.md).
    step = "measuring what the attempt changed";
    remeasured(res, await checkpoint.changes());
    step = "judging and keeping the attempt's work";
    const record = () => recordDiff(deps, res, diffFileOf(logPath));
    await judge(at, deps, res, record);
    if (!res.accepted) await record(); // the caller reverts it: its change is kept here
  } catch (err) {
    // Only a call the stop cut short is the stop (the checkpoint's changing steps ignore it); a step
    // that failed on its own meanwhile is a harness failure.
    if (deps.signal.aborted && err instanceof CommandError && err.reason === "aborted") res.result = { outcome: "stopped", reason: "Stopped by the user" };
    // Not the agent's failure: never retried with a revert (the agent's own timeout is an outcome, not an error).
    else throw err instanceof HarnessError ? err : new HarnessError(`wt-loop failed while ${step}: ${errorMessage(err)}`, { cause: err });
  } finally {
    agentGone(at.agent); // its processes are all gone once runAgent returns or throws
    res.durationMs = performance.now() - t0;
  }
  return res;
}

/**
 * Checks the agent's claim and keeps the work when it stands (docs/how-it-works.md). `res` already carries the
 * attempt's changes (progress, commits), which `accept` builds on.
 */
async function judge(at: AttemptContext, deps: LoopDeps, res: AttemptResult, recordDiff: () => Promise<void>): Promise<void> {
  const { loop, story } = at;
  const r = res.result;
  const title = `checkpoint: story ${story.id} — ${story.title}`;
  // The diff is written once the work is kept: the new checkpoint holds the tree the verdict was given on, so the
  // diff is one of two commits rather than of a fresh snapshot of the whole tree (docs/performance.md).
  const keep = async (message: string) => {
    // The commit leaves out the nested repositories the last measure saw; a reviewer ran in the tree after it (and a
    // repository it made is left there by the put-back): they are listed again.
    if (loop.review) res.nested = undefined;
    res.commits = await deps.checkpoint.accept(message, res);
    res.accepted = true;
    await recordDiff();
  };
  if (res.violation) {
    res.result = { outcome: "rejected", reason: res.violation };
    return;
  }
  if (r.outcome === "complete" && loop.done_criteria === "tasks") {
    const claim = await boxCheck(loop, deps, story);
    if ("reason" in claim) {
      res.result = { outcome: "rejected", reason: claim.reason };
      return;
    }
    if (!(await verifyClaim(at, deps, story.id, res))) return;
    // The verify command's changes are part of the candidate: the boxes are read again from its tree.
    const checked = loop.verify ? await boxCheck(loop, deps, story) : claim;
    if ("reason" in checked) {
      res.result = { outcome: "rejected", reason: `The verify command passed, but it changed the tasks file: ${checked.reason}` };
      return;
    }
    if (!(await reviewClaim(at, deps, story, at.attempt, res))) return;
    await keep(title); // the agent's own commits and the checkpoint
    res.stories = checked.stories;
    res.done = checked.stories.every(isComplete);
  } else if (r.outcome === "complete") {
    if (!(await verifyClaim(at, deps, story.id, res))) return;
    if (!(await reviewClaim(at, deps, story, at.attempt, res))) return;
    await keep(title);
    res.done = true;
  } else if (r.outcome === "no_signal" && loop.done_criteria === "manual" && res.progress) {
    // The classic Ralph loop: work without a verdict is progress, kept, and the agent goes again.
    await keep(`checkpoint: iteration ${at.iteration}`);
  }
}

/**
 * Writes the attempt's diff (the Files tab shows it per attempt, a reverted one's too). Only when it changed a file;
 * a diff that cannot be written is said and the loop goes on: it is a record, not the work. A stop stays a stop.
 */
async function recordDiff(deps: LoopDeps, res: AttemptResult, file: string): Promise<void> {
  if (!res.files.length || res.diffFile) return;
  try {
    writeRecordSafe(loopRoot(file), file, ""); // the log folder's links are refused before git writes into it
    await deps.checkpoint.writeDiff(file);
    res.diffFile = file;
  } catch (err) {
    // A stop that cut the diff short: before a revert it is the attempt's stop; a kept attempt stays kept, undiffed.
    if (deps.signal.aborted && err instanceof CommandError && err.reason === "aborted") {
      if (res.accepted) return;
      throw err;
    }
    deps.store.emit({ type: "Error", message: `wt-loop could not record the attempt's diff in ${file}: ${errorMessage(err)}` });
  }
}

/** The runs the service refused before this one spent too (unavailable.ts): the iteration's figures include them. */
function addRefusedSpending(res: AttemptResult, spent: Spent): void {
  res.tokens = { ...res.tokens };
  addTokens(res.tokens, spent.tokens);
  if (spent.cost_usd !== null) res.cost = (res.cost ?? 0) + spent.cost_usd;
}

export function refreshCounts(state: State, stories: Story[]) {
  // A planned story that went missing still counts: `done 1/1` of a three-story plan is not true.
  state.stories_total = stories.length + missingFromPlan(state.planned_stories, stories).length;
  state.stories_completed = state.done_criteria === "tasks" ? stories.filter(isComplete).length : 0;
}

/** The attempt as an iteration of the state (its spending in the totals), announced by IterationEnd; the caller saves. */
export function recordIteration(state: State, deps: LoopDeps, it: AttemptResult, at: { n: number; started: Date; story: Story; attempt: number }): Iteration {
  const n = at.n;
  const rec: Iteration = {
    n,
    started: at.started.toISOString(),
    ended: new Date().toISOString(),
    done_check: it.done,
    commits: it.commits,
    tokens_used: sumTokens(it.tokens),
    ...(it.result.outcome === "timeout" ? { timed_out: true as const } : {}),
    story_id: at.story.id,
    story_title: at.story.title,
    attempt: at.attempt,
    outcome: it.result.outcome,
    reason: "reason" in it.result ? it.result.reason : null,
    progress: it.progress,
    tokens: it.tokens,
    cost_usd: it.cost,
    turns: it.turns,
    exit_code: it.exitCode,
    ...(it.model ? { model: it.model } : {}),
    ...(it.agent ? { agent: it.agent } : {}),
    log_file: deps.paths.iterLog(n),
    ...(it.diffFile ? { diff_file: it.diffFile } : {}),
    ...(it.verify ? { verify: it.verify } : {}),
    ...(it.review ? { review: it.review } : {}),
    ...(it.waits ? { unavailable: it.waits } : {}),
  };
  if (it.deletedIgnored.length) {
    const names = it.deletedIgnored.slice(0, 10).join(", ") + (it.deletedIgnored.length > 10 ? ` and ${it.deletedIgnored.length - 10} more` : "");
    const lost = `The agent deleted files git ignores, which no checkpoint holds and wt-loop cannot bring back: ${names}`;
    rec.reason = rec.reason ? thenSentence(rec.reason, lost) : lost;
    deps.store.emit({ type: "Error", message: lost });
  }
  state.iterations.push(rec);
  state.total_tokens += rec.tokens_used;
  addTokens(state.tokens, it.tokens);
  state.total_cost_usd += it.cost ?? 0;
  deps.store.emit({
    type: "IterationEnd",
    story_id: at.story.id,
    iteration: n,
    outcome: rec.outcome,
    reason: rec.reason,
    duration_ms: it.durationMs,
    turns: it.turns,
    tokens: it.tokens,
    cost_usd: it.cost,
    ...(it.model ? { model: it.model } : {}),
    ...(it.agent ? { agent: it.agent } : {}),
    commits: it.commits,
    files: it.files,
    ...(it.diffFile ? { diff_file: it.diffFile } : {}),
  });
  return rec;
}
