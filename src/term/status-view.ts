/** What `status` shows of a loop: where it is, what it spent, why it ended, its last iterations. */
import { lostMessage } from "../checkpoint/lost-message.ts";
import { budgetLabel } from "../record/budget.ts";
import { sandboxLabel } from "../record/sandbox-label.ts";
import { runTimeMs, storiesKnown } from "../state/run-time.ts";
import type { State } from "../state/schema.ts";
import { clockTime, field, formatDuration, formatTokens, formatTotalCost, plural, table } from "../text/format.ts";
import { auditorOf } from "../agents/auditor-role.ts";
import { fieldWidth, historyRows } from "./history-view.ts";
import { inertData } from "./inert.ts";
import { laneRows, notStartedLine, storiesInLanes } from "./lanes-view.ts";
import type { Story } from "../stories/story.ts";
import { receiptOf } from "../record/receipt.ts";
import { auditText, forecastText, receiptRows } from "./receipt-view.ts";
import { issueLine } from "../github/label.ts";

/**
 * Every field is bounded (`field`): a state may hold a 20 MB task; `status --json` has it whole.
 * `stories`: the tasks file as it is now, for the prerequisites of stories not started (absent: not said).
 */
export function renderStatus(state: State, now = Date.now(), width = fieldWidth(), stories?: Story[]): string {
  // Titles, the task, reasons: from files and the agent. Only what is shown is made inert (the last
  // iterations, not all of them), and walked only when JSON.stringify finds something to change: status
  // pays this at start-up.
  const s = inertData({ ...state, iterations: state.iterations.slice(-5) });
  const f = (text: string) => field(text, width);
  const story = s.lanes.length
    ? storiesInLanes(s)
    : s.current_story
      ? `${s.current_story.index}/${s.stories_total} ${f(s.current_story.id)}. ${f(s.current_story.title)} ` +
        `(attempt ${s.current_story.attempt}/${s.max_retries})`
      : storiesKnown(s)
        ? `${s.stories_completed}/${s.stories_total} complete`
        : "unknown (no tasks file was found)";
  const ran = runTimeMs(s, now);
  const receipt = receiptOf(state);
  const lines = [
    `Loop in ${s.worktree_name}: ${s.status}${s.stop_reason === "budget" ? " (budget)" : ""}` +
      `${s.completion_pending ? " · waiting for the completion question" : ""}${s.runner_pid ? ` (runner pid ${s.runner_pid})` : ""}`,
    table([
      ["Task:", f(s.task)],
      ...(s.github ? [["Issue:", f(issueLine(s.github))]] : []),
      ["Iteration:", `${s.current_iteration}/${s.max_iterations}`],
      ["Story:", story],
      [
        "Elapsed:",
        ran === null
          ? "unknown (the state does not say when it ended)"
          : formatDuration(ran) + (s.paused_ms || s.paused_since ? " (time paused left out)" : ""),
      ],
      ["Tokens:", formatTokens(s.total_tokens)],
      ["Cost:", formatTotalCost(s.total_cost_usd)],
      ...(receipt.forecast ? [["Forecast:", forecastText(receipt.forecast)]] : []),
      ...(budgetLabel(s) ? [["Budget:", `${budgetLabel(s)} (all runs of this loop)`]] : []),
      ...(s.verify ? [["Verify:", `${f(s.verify)} (limit ${s.verify_timeout_min} min)`]] : []),
      ...(s.review
        ? [
            [
              "Review:",
              `${s.review}${s.review_cmd ? ` (${f(s.review_cmd)})` : ""}${s.review_model ? ` · model ${f(s.review_model)}` : ""} ` +
                `(limit ${s.review_timeout_min} min)`,
            ],
          ]
        : []),
      ...(s.audit ? [["Audit:", auditSetting(s, f)]] : []),
      ...(sandboxLabel(s) ? [["Sandbox:", f(sandboxLabel(s)!)]] : []),
      ["Agent:", `${s.agent}${s.model ? ` (${f(s.model)})` : ""} · checkpoints: ${s.checkpoint}${s.checkpoint_branch ? ` on ${s.checkpoint_branch}` : ""}`],
    ]),
  ];
  // Every iteration says which stories began, not only the five shown (`s`); only the tasks file's text is printed.
  const notStarted = notStartedLine(state, stories, width);
  if (notStarted) lines.push(notStarted);
  if (s.status === "paused" && s.paused_since)
    lines.push(
      `Paused: since ${clockTime(Date.parse(s.paused_since), now)}, after iteration ${s.current_iteration}. ` +
        `\`wt-loop resume\` goes on, \`wt-loop stop\` ends it.`,
    );
  if (s.pause_requested) lines.push(`Pausing: when iteration ${s.current_iteration} ends (\`wt-loop resume\` calls it off).`);
  if (s.notes.length) lines.push(`Notes: ${s.notes.length === 1 ? "1 note waits" : `${s.notes.length} notes wait`} for the next prompt.`);
  if (s.completion_pending) lines.push("Answer it in the loop's window, or here: `wt-loop stop` (keep the loop's branch) or `wt-loop stop --cleanup`.");
  if (s.waiting)
    lines.push(
      `Waiting: until ${clockTime(Date.parse(s.waiting.until), now)} (${formatDuration(Date.parse(s.waiting.until) - now)} left) ` +
        `${s.waiting.on === "pull_request" ? "for" : "for the agent:"} ${f(s.waiting.reason)}`,
    );
  if (s.reason) lines.push(`Reason: ${f(s.reason)}`);
  if (s.error) lines.push(`Error: ${f(s.error)}`);
  if (s.user_work?.lost?.length) lines.push(`Your work: ${lostMessage(s.user_work)}`);
  if (s.completing)
    lines.push(
      s.runner_pid
        ? `Completion: the ${s.completing} is under way (runner pid ${s.runner_pid}).`
        : `Completion: the ${s.completing} has not finished; \`wt-loop start\` finishes it.`,
    );
  if (s.lanes.length) lines.push("", `Lanes: ${s.lanes.length} open of --parallel ${s.parallel}`, ...laneRows(s, now, width));
  // Every story the loop worked on (its earlier runs too): attempts, time, tokens, cost.
  if (receipt.stories.length) lines.push("", "Stories:", ...receiptRows(receipt.stories, width).map((l) => `  ${l}`));
  if (receipt.audit) lines.push("", `Audit: ${auditText(receipt.audit)}`);
  const last = s.iterations;
  if (last.length)
    lines.push(
      "",
      "Last iterations:",
      historyRows(last)
        .map((l) => `  ${l}`)
        .join("\n"),
    );
  return lines.join("\n");
}

/** `--audit`: who audits, with what model, and its rounds. */
function auditSetting(s: State, f: (v: string) => string): string {
  const a = auditorOf(s);
  return (
    `${a.name}${a.cmd && a.name === "command" ? ` (${f(a.cmd)})` : ""}${a.model ? ` · model ${f(a.model)}` : ""}` +
    ` · at most ${plural(s.audit_rounds, "round")}`
  );
}
