/**
 * The start of every turn of a loop, sequential (engine.ts) or in lanes (scheduler.ts): the tasks file as it
 * is now, the plan announced once (LoopStarted), the counts refreshed, and the ending when a story of the plan
 * is gone from the file — someone removed it between iterations (an agent's removal is rejected and reverted
 * in judge): the plan cannot be done, and guessing what was meant would be worse. Likewise when a heading
 * now names an agent the loop cannot run (agents/story-agent.ts).
 */
import { promptFileOf } from "../state/paths.ts";
import type { State } from "../state/schema.ts";
import { loadStories } from "../stories/source.ts";
import { describeStories, isComplete, missingFromPlan, type Story } from "../stories/story.ts";
import { storyAgentsProblem } from "../agents/story-agent.ts";
import { refreshCounts } from "./attempt.ts";
import { loopStarted } from "../record/plan-event.ts";
import type { Ending } from "./finish.ts";
import type { LoopDeps } from "./ports.ts";

export interface Turn {
  stories: Story[];
  /** The loop's ending when stories of the plan are missing from the file, else null. */
  gone: Ending | null;
}

/** One reader per run: the first read announces the plan. */
export function storyTurns(state: State, deps: LoopDeps): () => Promise<Turn> {
  let announced = false;
  return async () => {
    const stories = await loadStories(deps.source);
    if (!announced) {
      announced = true;
      deps.store.emit(loopStarted(state, stories));
    }
    refreshCounts(state, stories);
    const missing = missingFromPlan(state.planned_stories, stories);
    // A heading edited while the loop ran may name an agent it cannot run: refused as a start refuses it.
    const agentProblem = missing.length ? null : storyAgentsProblem(state, stories, deps.env.PATH, isComplete);
    const gone: Ending | null = missing.length
      ? {
          status: "stuck",
          reason:
            `The tasks file no longer has these stories of the plan: ${describeStories(missing)}. ` +
            `Put them back and start again, or start a new loop for the new plan.`,
        }
      : agentProblem
        ? { status: "stuck", reason: `The tasks file changed while the loop ran: ${agentProblem} Then \`wt-loop start\` continues the loop.` }
        : null;
    return { stories, gone };
  };
}

/** An iteration begins on `story` (sequential or in a lane): it becomes the current story, and the event says so. */
export function storyBegins(state: State, deps: LoopDeps, story: Story, at: { n: number; index: number; total: number; attempt: number }): void {
  state.current_story = { id: story.id, title: story.title, index: at.index, attempt: at.attempt };
  deps.store.emit({
    type: "StoryProgress",
    story_id: story.id,
    title: story.title,
    index: at.index,
    total: at.total,
    completed: state.stories_completed,
    iteration: at.n,
    max_iterations: state.max_iterations,
    attempt: at.attempt,
    max_retries: state.max_retries,
    worktree: state.worktree_name,
    prompt_file: promptFileOf(deps.paths.iterLog(at.n)),
  });
}
