/**
 * `--audit` (docs/how-it-works.md "The audit"): once every story is accepted, a fresh agent session — the
 * auditor (agents/auditor.ts) — is shown the change's goal, the whole diff since the loop began, the check's
 * latest output and the stories, and ends with `<audit>PASS</audit>` or one `GAP: task` line per gap. It runs
 * as the reviewer does (review.ts): in the worktree, the tree held before it runs and whatever it changed put
 * back before its verdict counts; a run without a verdict is tried once more. This file is the auditor's run;
 * engine/audit-round.ts makes it an iteration and decides what the loop does with the verdict.
 */
import { open, stat } from "node:fs/promises";
import { auditorOf } from "../../agents/auditor.ts";
import { adapterFor } from "../../agents/registry.ts";
import { runAgent, type AgentRun } from "../../agents/run-agent.ts";
import { auditIn } from "../../agents/promise.ts";
import { addTokens, ZERO_TOKENS, type AuditRun, type State, type Tokens } from "../../state/schema.ts";
import { changeRequirements } from "../../stories/requirements.ts";
import type { Story } from "../../stories/story.ts";
import { agentGone, agentRunOptions, inWorktree } from "../agent-run.ts";
import type { LoopDeps } from "../ports.ts";
import { buildAuditPrompt, type AuditPromptInput } from "./audit-prompt.ts";
import { REVIEW_DIFF_BYTES } from "./review-prompt.ts";
import { runWhenAvailable, type Spent } from "./unavailable.ts";

/** The auditor's files sit beside the iteration's log: `iter-NNN.jsonl` is its output, `iter-NNN.audit.diff` what it was shown. */
export const auditDiffOf = (iterLog: string) => iterLog.replace(/\.jsonl$/, "") + ".audit.diff";
const runLogOf = (iterLog: string, run: number) => (run > 1 ? iterLog.replace(/\.jsonl$/, `.audit-${run}.jsonl`) : iterLog);

/** Runs without a verdict before the audit gives up (the loop then ends stuck: the change was not audited). */
const RUNS = 2;
/** How much of the check's latest output the prompt carries (its end: where a failure is said). */
const VERIFY_TAIL_BYTES = 20 * 1024;

export interface Audited {
  run: AuditRun;
  /** The verdict's gaps, or null for no verdict (missing, stopped, unavailable). */
  verdict: { kind: "pass" } | { kind: "gaps"; gaps: string[] } | null;
  /** Why the auditor could not run: its service refused it past `--max-wait` (the loop ends stuck). */
  halt: string | null;
  tokens: Tokens;
  cost: number | null;
  turns: number | null;
  exitCode: number | null;
  /** The log of its last run. */
  logFile: string;
}

export async function runAudit(
  state: State,
  deps: LoopDeps,
  at: { iteration: number; round: number; stories: Story[]; earlierGaps: string[] },
): Promise<Audited> {
  const iterLog = deps.paths.iterLog(at.iteration);
  const diffFile = auditDiffOf(iterLog);
  // The whole change: from what the tree was when the loop began (your uncommitted work then, while it is kept, else
  // the commit it began on — which a restart keeps, where its checkpoint is new) to now.
  const held = await deps.checkpoint.hold(state.user_work?.commit ?? state.original_commit ?? state.checkpoint_sha ?? undefined);
  // Recorded before the auditor may touch anything: a start after a kill puts the tree back to it (checkpoint/held-after-kill.ts).
  state.held = { ...held.at, by: "auditor" };
  await deps.store.write();
  const prompt = buildAuditPrompt(
    await promptInput(state, deps, at, { ...(await headOf(() => held.writeDiff(diffFile), diffFile, REVIEW_DIFF_BYTES)), file: diffFile }),
  );
  const auditor = auditorOf(state);
  const out: Audited = {
    run: {
      round: at.round,
      auditor: auditor.name as AuditRun["auditor"],
      verdict: "missing",
      gaps: [],
      story_id: null,
      reason: null,
      runs: 0,
      diff_file: diffFile,
      put_back: [],
    },
    verdict: null,
    halt: null,
    tokens: { ...ZERO_TOKENS },
    cost: null,
    turns: null,
    exitCode: null,
    logFile: iterLog,
  };
  try {
    for (let run = 1; run <= RUNS; run++) {
      const logPath = runLogOf(iterLog, run);
      Object.assign(out, { logFile: logPath });
      out.run.runs = run;
      deps.store.emit({ type: "AuditStart", iteration: at.iteration, round: at.round, auditor: auditor.name, run, log_file: logPath });
      const r0 = performance.now();
      const avail = await runWhenAvailable(
        state,
        deps,
        { storyId: "audit", iteration: at.iteration, attempt: at.round, logPath, undo: () => held.putBack() },
        () => runAuditor(state, deps, at.iteration, prompt, logPath),
      );
      spend(out, avail.refusedSpent, avail.run);
      const put = await held.putBack(); // before the verdict counts, whatever it is
      out.run.put_back.push(...put);
      const r = avail.run;
      Object.assign(out, { exitCode: r.exitCode, turns: r.done?.turns ?? out.turns });
      const verdict = auditIn(r.ending);
      const end = (v: AuditRun["verdict"], reason: string | null, final: boolean) => {
        Object.assign(out.run, { verdict: v, reason, gaps: verdict?.kind === "gaps" ? verdict.gaps : [] });
        deps.store.emit({
          type: "AuditEnd",
          iteration: at.iteration,
          round: at.round,
          run,
          verdict: v,
          gaps: out.run.gaps,
          reason,
          put_back: put,
          duration_ms: performance.now() - r0,
          log_file: logPath,
          final,
          tokens: { ...out.tokens },
          cost_usd: out.cost,
        });
      };
      if (avail.halt) {
        out.halt = `The auditor (${auditor.name}) could not run: ${avail.halt}`;
        end("unavailable", out.halt, true);
        return out;
      }
      if (r.end === "aborted" || deps.signal.aborted) {
        end("stopped", null, true);
        return out;
      }
      if (verdict) {
        out.verdict = verdict;
        end(verdict.kind, null, true);
        return out;
      }
      end("missing", noVerdict(r, state.iteration_timeout_min), run === RUNS);
    }
    return out;
  } finally {
    // Every run's changes were put back (or a harness failure ends the loop): nothing is left for a start to put back.
    agentGone(state);
    state.held = null;
  }
}

async function promptInput(
  state: State,
  deps: LoopDeps,
  at: { stories: Story[]; earlierGaps: string[] },
  diff: AuditPromptInput["diff"],
): Promise<AuditPromptInput> {
  const src = deps.source;
  const change =
    src.kind === "openspec"
      ? {
          name: src.change.name,
          // The files the openspec CLI names for the change (stories/openspec.ts), read now: the goal as it stands.
          documents: await Promise.all(
            [...src.change.proposal, ...src.change.design].map(async (file) => ({
              file,
              text: (await headOf(null, file, REVIEW_DIFF_BYTES).catch(() => null))?.text ?? "",
            })),
          ),
          requirements: await changeRequirements(src.change.dir),
        }
      : null;
  const lastVerify = state.iterations.findLast((i) => i.verify)?.verify;
  const output = lastVerify ? await tailOf(lastVerify.log_file, VERIFY_TAIL_BYTES).catch(() => null) : null;
  return {
    worktree: state.worktree_path,
    task: state.task,
    change,
    tasksFile: state.tasks_file ?? "tasks.md",
    stories: at.stories,
    verify: state.verify ? { command: state.verify, output } : null,
    diff,
    earlierGaps: at.earlierGaps,
  };
}

function runAuditor(state: State, deps: LoopDeps, iteration: number, prompt: string, logPath: string): Promise<AgentRun> {
  const auditor = auditorOf(state);
  return runAgent(
    adapterFor(auditor.name),
    { prompt, model: auditor.model, agentCmd: auditor.cmd },
    agentRunOptions(inWorktree(state, iteration), deps, {
      logPath,
      timeoutMin: state.iteration_timeout_min,
      onEvent: (event) => deps.store.emit({ type: "AuditEvent", event }),
    }),
  );
}

function noVerdict(r: AgentRun, timeoutMin: number): string {
  if (r.end === "timeout") return `it ran past --iteration-timeout ${timeoutMin} min and was ended, with every process it started`;
  if (r.exitCode !== 0) return `it exited with code ${r.exitCode} without a verdict`;
  return "its final message did not end with <audit>PASS</audit> or an <audit> tag listing GAP: lines";
}

function spend(out: Audited, refused: Spent, run: AgentRun): void {
  for (const s of [refused, ...(run.done ? [{ tokens: run.done.tokens, cost_usd: run.done.cost_usd }] : [])]) {
    addTokens(out.tokens, s.tokens);
    if (s.cost_usd !== null) out.cost = (out.cost ?? 0) + s.cost_usd;
  }
}

/** The first `max` bytes of a file (written first by `write` when given), and its whole size. */
async function headOf(write: (() => Promise<number>) | null, file: string, max: number): Promise<{ text: string; bytes: number }> {
  const bytes = write ? await write() : (await stat(file)).size;
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(Math.min(bytes, max));
    await fh.read(buf, 0, buf.length, 0);
    // A cut may fall inside a character: its broken end is dropped, not shown as garbage.
    return { text: new TextDecoder().decode(buf).replace(/\uFFFD+$/, ""), bytes };
  } finally {
    await fh.close();
  }
}

async function tailOf(file: string, max: number): Promise<{ text: string; bytes: number; file: string }> {
  const bytes = (await stat(file)).size;
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(Math.min(bytes, max));
    await fh.read(buf, 0, buf.length, bytes - buf.length);
    return { text: new TextDecoder().decode(buf).replace(/^\uFFFD+/, ""), bytes, file };
  } finally {
    await fh.close();
  }
}
