/**
 * The plan as a loop begins (LoopStarted): the engine announces it at its first turn, and `run` shows
 * it on its screen as soon as the plan is read, before the first checkpoint and the agent (run/screen-first.ts).
 */
import type { State } from "../state/schema.ts";
import type { Story } from "../stories/story.ts";
import type { LoopEvent } from "./events.ts";

/** The plan as the loop begins, for a view that lists every story before the agent gets to it. */
export function loopStarted(state: State, stories: Story[]): LoopEvent {
  return {
    type: "LoopStarted",
    worktree: state.worktree_name,
    change: state.change,
    tasks_file: state.tasks_file,
    done_criteria: state.done_criteria,
    checkpoint: state.checkpoint,
    max_iterations: state.max_iterations,
    max_retries: state.max_retries,
    verify: state.verify ?? null,
    stories: stories.map((s) => ({ id: s.id, title: s.title, tasks: s.tasks.length, done: s.tasks.filter((t) => t.done).length })),
  };
}
