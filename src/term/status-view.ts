/** What `status` shows of a loop: where it is, what it spent, why it ended, its last iterations. */
import { budgetLabel } from "../loop/budget.ts";
import type { State } from "../state/schema.ts";
import { between, clockTime, formatDuration, formatTokens, formatTotalCost, table } from "./format.ts";
import { historyRows } from "./history-view.ts";
import { inertDeep } from "./inert.ts";

export function renderStatus(state: State, now = Date.now()): string {
  const s = inertDeep(state); // titles, the task, reasons: from files and the agent
  const story = s.current_story
    ? `${s.current_story.index}/${s.stories_total} ${s.current_story.id}. ${s.current_story.title} (attempt ${s.current_story.attempt}/${s.max_retries})`
    : `${s.stories_completed}/${s.stories_total} complete`;
  const lines = [
    `Loop in ${s.worktree_name}: ${s.status}${s.stop_reason === "budget" ? " (budget)" : ""}${s.completion_pending ? " · waiting for the completion question" : ""}${s.runner_pid ? ` (runner pid ${s.runner_pid})` : ""}`,
    table([
      ["Task:", s.task.split("\n")[0] ?? ""],
      ["Iteration:", `${s.current_iteration}/${s.max_iterations}`],
      ["Story:", story],
      ["Elapsed:", formatDuration(between(s.started_at, s.ended_at, now))],
      ["Tokens:", formatTokens(s.total_tokens)],
      ["Cost:", formatTotalCost(s.total_cost_usd)],
      ...(budgetLabel(s) ? [["Budget:", `${budgetLabel(s)} (all runs of this loop)`]] : []),
      ...(s.verify ? [["Verify:", `${s.verify} (limit ${s.verify_timeout_min} min)`]] : []),
      ["Agent:", `${s.agent}${s.model ? ` (${s.model})` : ""} · checkpoints: ${s.checkpoint}${s.checkpoint_branch ? ` on ${s.checkpoint_branch}` : ""}`],
    ]),
  ];
  if (s.completion_pending)
    lines.push("Answer it in the loop's window, or here: `wt-loop stop` (keep the loop's branch) or `wt-loop stop --cleanup`.");
  if (s.waiting)
    lines.push(`Waiting: until ${clockTime(Date.parse(s.waiting.until), now)} (${formatDuration(Date.parse(s.waiting.until) - now)} left) for the agent: ${s.waiting.reason}`);
  if (s.reason) lines.push(`Reason: ${s.reason}`);
  if (s.error) lines.push(`Error: ${s.error}`);
  if (s.completing)
    lines.push(
      s.runner_pid
        ? `Completion: the ${s.completing} is under way (runner pid ${s.runner_pid}).`
        : `Completion: the ${s.completing} has not finished; \`wt-loop start\` finishes it.`,
    );
  const last = s.iterations.slice(-5);
  if (last.length) lines.push("", "Last iterations:", historyRows(last).map((l) => `  ${l}`).join("\n"));
  return lines.join("\n");
}
