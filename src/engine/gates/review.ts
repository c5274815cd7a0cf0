/**
 * `--review` (docs/verify-and-budgets.md): after a COMPLETE passed the box check and `--verify`, a second agent reads the
 * story and the attempt's diff and ends with `<review>APPROVE</review>` or `<review>CHANGES: reason</review>`
 * (the promise's rule, the same scanner). CHANGES rejects the attempt with the reviewer's reason; a
 * run without a verdict (none, a crash, a timeout) is tried once more, then the story is accepted
 * with the missing review recorded. The reviewer runs in the worktree, so it can run the tests, but
 * it must not change it: the candidate is held before it runs and whatever it changed is put back
 * before its verdict counts. Its tokens and cost are the attempt's too (totals and budgets).
 */
import { open } from "node:fs/promises";
import { adapterFor } from "../../agents/registry.ts";
import { runAgent, type AgentRun } from "../../agents/run-agent.ts";
import { verdictIn } from "../../agents/promise.ts";
import type { Held } from "../../checkpoint/hold.ts";
import { addTokens, ZERO_TOKENS, type ReviewRun, type Tokens } from "../../state/schema.ts";
import type { Story } from "../../stories/story.ts";
import { agentGone, agentRunOptions, type RunSite } from "../agent-run.ts";
import type { LoopDeps } from "../ports.ts";
import { buildReviewPrompt, REVIEW_DIFF_BYTES } from "./review-prompt.ts";
import { runWhenAvailable, type Spent } from "./unavailable.ts";

/** The reviewer's files sit next to the iteration's agent log: `iter-NNN.jsonl` → `iter-NNN.review.jsonl`, `.review.diff`. */
export const reviewLogOf = (iterLog: string, run = 1) => iterLog.replace(/\.jsonl$/, "") + (run > 1 ? `.review-${run}.jsonl` : ".review.jsonl");
export const reviewDiffOf = (iterLog: string) => iterLog.replace(/\.jsonl$/, "") + ".review.diff";

/** Runs without a verdict before the story is accepted without one. */
const RUNS = 2;

/** What the review needs of an attempt: its verdict so far, and its spending, which the reviewer's adds to. */
export interface Reviewed {
  result: { outcome: string; reason?: string };
  tokens: Tokens;
  cost: number | null;
  review?: ReviewRun;
}

/** Whether the COMPLETE still stands after the review; `res.result` says why not when it does not. */
export async function reviewClaim(site: RunSite, deps: LoopDeps, story: Story, attempt: number, res: Reviewed): Promise<boolean> {
  const { loop, iteration } = site;
  const reviewer = loop.review;
  if (!reviewer) return true;
  const iterLog = deps.paths.iterLog(iteration);
  const held = await deps.checkpoint.hold();
  // One story after another, recorded before the reviewer may touch anything: a start after a kill puts the tree back to
  // it (checkpoint/held-after-kill.ts). Not in a lane: a dead runner's lanes are removed, with whatever a reviewer did there.
  const recorded = !deps.parallel;
  if (recorded) {
    loop.held = { ...held.at, by: "reviewer" };
    await deps.store.write();
  }
  const diffFile = reviewDiffOf(iterLog);
  const prompt = buildReviewPrompt({
    worktree: site.worktree,
    task: loop.task,
    source: deps.source,
    story,
    verify: loop.verify ?? null,
    diff: { ...(await headOf(held, diffFile)), file: diffFile },
  });
  const rec: ReviewRun = {
    reviewer,
    verdict: "missing",
    reason: null,
    runs: 0,
    tokens: { ...ZERO_TOKENS },
    cost_usd: null,
    duration_ms: 0,
    log_file: reviewLogOf(iterLog),
    diff_file: diffFile,
    put_back: [],
  };
  res.review = rec;
  const t0 = performance.now();
  try {
    for (let run = 1; run <= RUNS; run++) {
      const logPath = reviewLogOf(iterLog, run);
      Object.assign(rec, { runs: run, log_file: logPath });
      deps.store.emit({ type: "ReviewStart", story_id: story.id, iteration, reviewer, run, log_file: logPath });
      const r0 = performance.now();
      // A refused run's partial changes are put back like any other: the held tree is the candidate, not the checkpoint.
      const avail = await runWhenAvailable(loop, deps, { storyId: story.id, iteration, attempt, logPath, undo: () => held.putBack() }, () =>
        runReviewer(site, deps, story.id, prompt, logPath),
      );
      spend(rec, res, avail.refusedSpent, avail.run);
      const put = await held.putBack(); // before the verdict counts, whatever it is
      rec.put_back.push(...put);
      const r = avail.run;
      const verdict = verdictIn(r.ending);
      const end = (v: ReviewRun["verdict"], reason: string | null) => {
        Object.assign(rec, { verdict: v, reason });
        deps.store.emit({
          type: "ReviewEnd",
          story_id: story.id,
          iteration,
          run,
          verdict: v,
          reason,
          put_back: put,
          duration_ms: performance.now() - r0,
          log_file: logPath,
        });
      };
      if (avail.halt) {
        end("unavailable", avail.halt);
        res.result = { outcome: "unavailable", reason: `The reviewer (--review ${reviewer}) could not run: ${avail.halt}` };
        return false;
      }
      if (r.end === "aborted" || deps.signal.aborted) {
        end("stopped", null);
        res.result = { outcome: "stopped", reason: "Stopped by the user during the review" };
        return false;
      }
      if (verdict?.kind === "approve") {
        end("approve", null);
        return true;
      }
      if (verdict?.kind === "changes") {
        end("changes", verdict.reason);
        res.result = { outcome: "rejected", reason: `You reported COMPLETE, but the reviewer asked for changes: ${verdict.reason}` };
        return false;
      }
      end("missing", noVerdict(r, loop.review_timeout_min));
    }
    const why = `The reviewer gave no verdict in ${RUNS} runs (last: ${rec.reason}): story ${story.id} is accepted without a review.`;
    rec.reason = why;
    deps.store.emit({ type: "Error", message: why });
    return true;
  } finally {
    rec.duration_ms = performance.now() - t0;
    agentGone(site.agent);
    if (recorded) {
      // Its changes are put back: saved at once, so a kill before the work is kept never moves that back.
      loop.held = null;
      await deps.store.write();
    }
  }
}

function runReviewer(site: RunSite, deps: LoopDeps, storyId: string, prompt: string, logPath: string): Promise<AgentRun> {
  const { loop } = site;
  return runAgent(
    adapterFor(loop.review!),
    { prompt, model: loop.review_model, agentCmd: loop.review_cmd },
    agentRunOptions(site, deps, {
      logPath,
      timeoutMin: loop.review_timeout_min,
      onEvent: (event) => deps.store.emit({ type: "ReviewEvent", story_id: storyId, event }),
    }),
  );
}

function noVerdict(r: AgentRun, timeoutMin: number): string {
  if (r.end === "timeout") return `it ran past --review-timeout ${timeoutMin} min and was ended, with every process it started`;
  if (r.exitCode !== 0) return `it exited with code ${r.exitCode} without a verdict`;
  return "its final message did not end with <review>APPROVE</review> or <review>CHANGES: reason</review>";
}

/** The reviewer's spending is the review's and the attempt's: totals and budgets count it. */
function spend(rec: ReviewRun, res: Reviewed, refused: Spent, run: AgentRun): void {
  const runs = [refused, ...(run.done ? [{ tokens: run.done.tokens, cost_usd: run.done.cost_usd }] : [])];
  res.tokens = { ...res.tokens };
  for (const s of runs) {
    addTokens(rec.tokens, s.tokens);
    addTokens(res.tokens, s.tokens);
    if (s.cost_usd !== null) {
      rec.cost_usd = (rec.cost_usd ?? 0) + s.cost_usd;
      res.cost = (res.cost ?? 0) + s.cost_usd;
    }
  }
}

/** The diff, written whole to its file; the prompt gets its first REVIEW_DIFF_BYTES. */
async function headOf(held: Held, file: string): Promise<{ text: string; bytes: number }> {
  const bytes = await held.writeDiff(file);
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(Math.min(bytes, REVIEW_DIFF_BYTES));
    await fh.read(buf, 0, buf.length, 0);
    // A cut may fall inside a character: its broken end is dropped, not shown as garbage.
    return { text: new TextDecoder().decode(buf).replace(/\uFFFD+$/, ""), bytes };
  } finally {
    await fh.close();
  }
}
