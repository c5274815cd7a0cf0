/** `wt-loop list` for humans: one line per worktree, then the notes and problems. */
import { clockTime, formatCost, formatDuration, table } from "../text/format.ts";
import { inertDeep } from "../term/inert.ts";
import { storiesKnown } from "../state/run-time.ts";
import type { LoopSummary, WorktreeLoop } from "./loops.ts";

export function statusLabel(l: LoopSummary): string {
  const status = l.stop_reason === "budget" ? `${l.status} (budget)` : l.status;
  const sandbox = l.sandbox ? " · sandbox" : "";
  if (l.pause_requested) return `${status}, pausing after this iteration${sandbox}`;
  if (l.status === "paused") return `${status}, \`wt-loop resume\` goes on${sandbox}`;
  if (l.waiting === "question") return `${status}, asking keep/cleanup${sandbox}`;
  if (l.waiting === "agent" && l.waiting_until) return `${status}, waiting for the agent until ${clockTime(Date.parse(l.waiting_until))}${sandbox}`;
  return `${status}${sandbox}`;
}

/** `k/n`: the story being worked on while it runs, else the stories completed; with lanes, those complete and the lanes. */
export const storyLabel = (l: LoopSummary) =>
  l.lanes.length
    ? `${l.stories_completed}/${l.stories_total} · ${l.lanes.length === 1 ? "1 lane" : `${l.lanes.length} lanes`}`
    : storiesKnown(l) || l.story
      ? `${l.story ? l.story.index : l.stories_completed}/${l.stories_total}`
      : "unknown";

function runnerLabel(e: WorktreeLoop): string {
  const l = e.loop!;
  if (l.runner_pid === null) return "-";
  if (e.note) return `died (pid ${l.runner_pid})`;
  return l.runner_alive ? `alive (pid ${l.runner_pid})` : `gone (pid ${l.runner_pid})`;
}

export function renderList(worktrees: WorktreeLoop[]): string {
  const entries = inertDeep(worktrees); // names, branches, notes: from the file system and the state files
  const head = ["", "WORKTREE", "BRANCH", "STATUS", "STORY", "ITERATION", "ELAPSED", "COST", "RUNNER"];
  const rows = entries.map((e) => {
    const mark = e.current ? "*" : "";
    const branch = e.branch ?? `(detached ${e.head?.slice(0, 7) ?? "?"})`;
    if (e.problem) return [mark, e.name, branch, "unreadable"];
    const l = e.loop;
    if (!l) return [mark, e.name, branch, "no loop"];
    return [
      mark,
      e.name,
      branch,
      statusLabel(l),
      storyLabel(l),
      `${l.iteration}/${l.max_iterations}`,
      l.elapsed_ms === null ? "unknown" : formatDuration(l.elapsed_ms),
      formatCost(l.total_cost_usd),
      runnerLabel(e),
    ];
  });
  const lines = [table([head, ...rows])];
  for (const e of entries) {
    if (e.note) lines.push(`Note: ${e.name}: ${e.note}`);
    if (e.problem) lines.push(`Problem: ${e.name}: ${e.problem}`);
  }
  return lines.join("\n");
}
