/**
 * One round of `--audit` as an iteration of the loop (docs/how-it-works.md "The audit"): numbered like
 * an attempt (its log is `iter-NNN.jsonl`, it counts toward `--max`), recorded with `kind: "audit"`, its
 * spending in the totals and budgets. The auditor's run is gates/audit.ts; here its verdict decides: PASS
 * ends the loop `done`; gaps become a story appended to the tasks file and the loop goes on; a gap an
 * earlier round found ends it `stuck` naming the gap (the story written for it did not close it, and a
 * third try would not either); no verdict, or an auditor that cannot run, ends it `stuck` too: every
 * story is complete, but the change was not audited (`done` would say it was).
 */
import { auditorOf } from "../agents/auditor.ts";
import { addTokens, sumTokens, type Iteration, type State } from "../state/schema.ts";
import { appendGapStory, sameGap } from "../stories/gaps.ts";
import type { Story } from "../stories/story.ts";
import { plural } from "../text/format.ts";
import { windowTitle } from "../text/window-title.ts";
import type { Ending } from "./finish.ts";
import { runAudit } from "./gates/audit.ts";
import { harnessStep } from "./harness.ts";
import type { LoopDeps } from "./ports.ts";

const COUNTED = ["pass", "gaps", "repeated"];

/** The audit rounds of this run that gave a verdict (a round without one is tried again by the next start). */
export const auditRounds = (state: Pick<State, "iterations">) => state.iterations.filter((i) => i.audit && COUNTED.includes(i.audit.verdict));

/** Whether an audit is due now that every story is complete; when its rounds are spent, what the done reason adds. */
export function auditDue(state: State): { due: true } | { due: false; note: string | null } {
  if (!state.audit || state.done_criteria !== "tasks") return { due: false, note: null };
  const rounds = auditRounds(state);
  if (rounds.length < state.audit_rounds) return { due: true };
  return {
    due: false,
    note:
      `The audit ran its ${plural(rounds.length, "round")} (--audit-rounds ${state.audit_rounds}); ` +
      `the gaps of the last were implemented and not audited again.`,
  };
}

/** Runs one audit round; the loop's ending, or null when its gaps became a story and the loop goes on. */
export async function auditRound(state: State, deps: LoopDeps, stories: Story[]): Promise<Ending | null> {
  const earlier = auditRounds(state);
  const round = earlier.length + 1;
  const earlierGaps = earlier.flatMap((i) => i.audit!.gaps);
  const n = ++state.current_iteration;
  state.current_story = null;
  deps.setTitle(windowTitle(state.worktree_name, `${n}/${state.max_iterations} audit`));
  await deps.store.save();
  const started = new Date();
  const a = await runAudit(state, deps, { iteration: n, round, stories, earlierGaps });
  await deps.store.save(); // the auditor's changes are put back: a kill from here on leaves nothing for a start to put back
  let ending: Ending | null;
  let outcome: Iteration["outcome"];
  let reason: string | null = null;
  const v = a.verdict;
  if (a.halt) [outcome, reason, ending] = ["unavailable", a.halt, { status: "stuck", reason: a.halt }];
  else if (a.run.verdict === "stopped") [outcome, ending] = ["stopped", { status: "stopped", reason: "Stopped by the user during the audit" }];
  else if (!v) {
    reason = `The auditor gave no verdict in ${plural(a.run.runs, "run")} (last: ${a.run.reason})`;
    outcome = "no_signal";
    ending = { status: "stuck", reason: `${reason}: every story is complete, but the change was not audited. \`wt-loop start\` audits it again.` };
  } else if (v.kind === "pass") {
    outcome = "complete";
    ending = {
      status: "done",
      reason: `${stories.length === 1 ? "The 1 story is" : `All ${stories.length} stories are`} complete and the audit passed (round ${round})`,
    };
  } else {
    outcome = "rejected";
    const again = v.gaps.find((g) => earlierGaps.some((e) => sameGap(e, g)));
    if (again) {
      Object.assign(a.run, { verdict: "repeated", reason: `found again: ${again}` });
      reason = `The audit found a gap again that the story written for it did not close: "${again}"`;
      ending = { status: "stuck", reason: `${reason}. Look at it yourself; \`wt-loop start\` audits again.` };
    } else {
      // Kept as the new checkpoint at once: a failed attempt at the gap story is reverted to it, not to before it,
      // and a lane (`--parallel`) is made from the loop branch, which must hold it.
      const story = await harnessStep("writing the audit's gaps to the tasks file", async () => {
        const written = await appendGapStory(state.worktree_path, state.tasks_file!, v.gaps, round);
        await deps.checkpoint.accept(`wt-loop: the audit's gaps (round ${round}) as story ${written.id}`, await deps.checkpoint.changes());
        return written;
      });
      a.run.story_id = story.id;
      reason = `The audit found ${plural(v.gaps.length, "gap")}, now story ${story.id} "${story.title}": ${v.gaps.join("; ")}`;
      ending = null;
    }
  }
  const model = auditorOf(state).model;
  const rec: Iteration = {
    n,
    started: started.toISOString(),
    ended: new Date().toISOString(),
    done_check: outcome === "complete",
    commits: [],
    tokens_used: sumTokens(a.tokens),
    story_id: null,
    story_title: `Audit (round ${round})`,
    attempt: 1,
    outcome,
    reason,
    progress: false,
    tokens: a.tokens,
    cost_usd: a.cost,
    turns: a.turns,
    exit_code: a.exitCode,
    ...(model ? { model } : {}),
    log_file: a.logFile,
    kind: "audit",
    audit: a.run,
  };
  state.iterations.push(rec);
  state.total_tokens += rec.tokens_used;
  addTokens(state.tokens, a.tokens);
  state.total_cost_usd += a.cost ?? 0;
  if (ending?.status === "stuck") deps.store.emit({ type: "Error", message: ending.reason });
  await deps.store.save();
  return ending;
}
