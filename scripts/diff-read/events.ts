/**
 * A run's event log (`loop-events.jsonl`, src/record/events.ts) for `wt-loop log`: each iteration's
 * StoryProgress, what the agent said and did, its end; a Complete for an ended loop; and the lines a
 * crash or a hand leaves (a torn last line, an event of a later version, a blank line).
 */
import type { Rng } from "./rng.ts";
import { text } from "./texts.ts";

export function eventLog(r: Rng, state: Record<string, unknown>): string {
  const its = (state.iterations as Record<string, unknown>[]).slice(0, 40);
  const lines: string[] = [];
  const push = (ts: unknown, e: Record<string, unknown>) => lines.push(JSON.stringify({ ts, ...e }));
  const max = Number(state.max_iterations) || 1;
  for (const it of its) {
    const story = String(it.story_id ?? "0");
    push(it.started, {
      type: "StoryProgress",
      story_id: story,
      title: String(it.story_title ?? ""),
      index: 1,
      total: 3,
      completed: 0,
      iteration: it.n,
      max_iterations: max,
      attempt: it.attempt,
      max_retries: 3,
      worktree: "wt",
    });
    for (let k = r.int(0, 4); k > 0; k--)
      push(it.started, {
        type: "StoryEvent",
        story_id: story,
        event: r.chance(0.5) ? { type: "Message", text: text(r) } : { type: "ToolUse", name: r.pick(["Bash", "Edit", "Read"]), summary: text(r) },
      });
    if (r.chance(0.1)) lines.push(r.pick(['{"ts":"2026-11-21T10:00:00Z","type":"FromTheFuture","x":1}', "", "{torn"]));
    push(it.ended, {
      type: "IterationEnd",
      story_id: story,
      iteration: it.n,
      outcome: it.outcome,
      reason: it.reason,
      duration_ms: r.int(0, 600_000),
      turns: it.turns,
      tokens: it.tokens,
      cost_usd: it.cost_usd,
      commits: it.commits,
      files: r.chance(0.5) ? [{ path: "src/a.ts", status: "modified" }] : [],
    });
  }
  if (["done", "stuck", "stalled", "stopped"].includes(String(state.status)) && r.chance(0.7))
    push(state.ended_at ?? state.updated_at, {
      type: "Complete",
      status: state.status,
      reason: String(state.reason ?? ""),
      stories_completed: state.stories_completed,
      stories_total: state.stories_total,
      iterations: its.length,
      total_tokens: state.total_tokens,
      total_cost_usd: state.total_cost_usd,
      duration_ms: r.int(0, 10_000_000),
      branch: state.checkpoint_branch,
      completion: state.completion,
    });
  if (r.chance(0.1)) lines.push('{"ts":"2026-11-21T1');
  return lines.join("\n") + (r.chance(0.9) ? "\n" : "");
}
