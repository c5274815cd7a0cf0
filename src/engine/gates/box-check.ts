/**
 * The harness's check of a COMPLETE in `tasks` mode (docs/how-it-works.md): the story's boxes are ticked in the
 * tasks file and no story of the plan is gone. Run on the agent's tree, and again on the tree a
 * --verify command left (its changes are part of the candidate: it may un-tick or delete as well).
 */
import type { State } from "../../state/schema.ts";
import { loadStories } from "../../stories/source.ts";
import { describeStories, missingFromPlan, type Story } from "../../stories/story.ts";
import type { LoopDeps } from "../ports.ts";

/** Whether the tasks file backs a COMPLETE of `story`: its boxes ticked, no story of the plan gone. */
export async function boxCheck(state: Pick<State, "planned_stories">, deps: LoopDeps, story: Story): Promise<{ stories: Story[] } | { reason: string }> {
  let stories: Story[];
  try {
    stories = await loadStories(deps.source);
  } catch (err) {
    // A deleted tasks file is the attempt's doing (reverted with it), not a failure of wt-loop.
    if ((err as { code?: string }).code !== "ENOENT" || deps.source.kind === "manual") throw err;
    return {
      reason:
        `You reported COMPLETE, but the tasks file ${deps.source.tasksFile} no longer exists. ` +
        `Do not delete or move it; only tick the boxes of the work you did.`,
    };
  }
  const now = stories.find((s) => s.id === story.id);
  const open = now ? now.tasks.filter((t) => !t.done) : story.tasks;
  const gone = missingFromPlan(state.planned_stories, stories).filter((s) => s.id !== story.id);
  if (now && !open.length && gone.length)
    return {
      reason:
        `You reported COMPLETE, but the tasks file no longer has these stories of the plan: ${describeStories(gone)}. ` +
        `Do not remove or rename stories or their checkboxes; only tick the boxes of the work you did.`,
    };
  if (!now)
    return { reason: `You reported COMPLETE but story ${story.id} "${story.title}" is no longer in the tasks file. Do not remove or rename its heading.` };
  if (open.length) {
    const names = open.map((t) => `"${t.text}"`).join(", ");
    return {
      reason:
        `You reported COMPLETE but these tasks of story ${story.id} are not ticked in the tasks file: ${names}. ` +
        `Finish them and tick their boxes, or report FAILED.`,
    };
  }
  return { stories };
}
