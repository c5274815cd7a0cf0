/**
 * What `--issue-sync` writes to an issue (docs/github.md), as pure functions: the body with the accepted
 * stories' boxes ticked (nothing else of the author's text changes), and the one comment with the receipt.
 */
import { parseTaskLine } from "../stories/checkbox.ts";
import { receiptOf, storyCost } from "../record/receipt.ts";
import { auditText } from "../record/audit-text.ts";
import type { State, StoryReceipt } from "../state/schema.ts";
import { formatCost, formatDuration, formatTokens, plural } from "../text/format.ts";

const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * `body` with the unticked boxes whose text is one of `texts` ticked (each text ticks as many boxes as it
 * occurs in `texts`), boxes in code fences left alone; null when nothing changes. Only the brackets change,
 * so the author's words, line ends (\r\n) and every other box stay as they were.
 */
export function tickBody(body: string, texts: string[]): string | null {
  const wanted = new Map<string, number>();
  for (const t of texts) wanted.set(t, (wanted.get(t) ?? 0) + 1);
  let fenced = false;
  let changed = false;
  const lines = body.split("\n").map((line) => {
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced) return line;
    const task = parseTaskLine(line, 0);
    const left = task ? (wanted.get(task.text) ?? 0) : 0;
    if (!task || task.done || left === 0) return line;
    wanted.set(task.text, left - 1);
    changed = true;
    return line.replace(/\[[^\]]*\]/, "[x]");
  });
  return changed ? lines.join("\n") : null;
}

/** The hidden line that finds this loop's comment again (a second run, a run after a kill): one per branch. */
export const commentMarker = (s: Pick<State, "checkpoint_branch" | "worktree_name">) => `<!-- wt-loop receipt: ${s.checkpoint_branch ?? s.worktree_name} -->`;

/** A cell of a markdown table: one line, no column break, no HTML. */
export const cell = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").replace(/</g, "&lt;").trim();

/** The receipt as a markdown table, a story a row (the issue's comment and the pull request's body). */
export const receiptTable = (stories: StoryReceipt[]): string[] => [
  "| story | result | attempts | time | tokens | cost |",
  "|---|---|---|---|---|---|",
  ...stories.map(
    (l) =>
      `| ${cell(l.id === null ? "(the task)" : `${l.id}. ${l.title ?? ""}`)} | ${l.complete ? "✅ accepted" : "— not accepted"} | ${l.attempts} ` +
      `| ${formatDuration(l.duration_ms)} | ${formatTokens(l.agent.tokens + l.reviewer.tokens)} | ${formatCost(storyCost(l))} |`,
  ),
];

/** The comment: the loop's ending and, per story, accepted or not, attempts, time, tokens and cost. */
export function receiptComment(s: State): string {
  const r = receiptOf(s);
  const cost = s.total_cost_usd > 0 ? ` · ${formatCost(s.total_cost_usd)}` : "";
  return [
    commentMarker(s),
    `**wt-loop** ended **${s.status}**: ${s.stories_completed}/${s.stories_total} stories, ` +
      `${plural(s.iterations.length, "iteration")}, ${formatTokens(s.total_tokens)} tokens${cost}.`,
    ...(s.reason ? ["", `> ${cell(s.reason)}`] : []),
    "",
    ...receiptTable(r.stories),
    ...(r.audit ? ["", `Audit: ${cell(auditText(r.audit))}`] : []),
    "",
    `<sub>Written by wt-loop from its own records (branch \`${cell(s.checkpoint_branch ?? "none")}\`); edited in place by later runs of this loop.</sub>`,
  ].join("\n");
}
