/**
 * Which model an attempt asks the agent for (docs/how-it-works.md "A model per story"): the model the
 * story's heading names, always; else, for a story whose heading names another agent than the loop's, that
 * agent's own (`--model` and `--escalate` are model names of the loop's agent, which another CLI would
 * refuse); else with `--escalate a,b,c` attempt 1 uses a, each rejected attempt climbs one step (attempt 2 b,
 * attempt 3 and later c); else `--model`; else the agent's own (null).
 * Each story starts again at the first step: how hard one story was says nothing of the next, and a
 * strong model kept for the plain stories after one hard one would spend where nothing needs it.
 */
import { storyAgent } from "../agents/story-agent.ts";
import type { State } from "../state/schema.ts";
import type { Story } from "../stories/story.ts";

export const escalation = (escalate: string | null | undefined): string[] => (escalate ? escalate.split(",").filter(Boolean) : []);

export function modelFor(
  state: Pick<State, "model" | "escalate" | "agent" | "agent_cmd">,
  story: Pick<Story, "model" | "agent">,
  attempt: number,
): string | null {
  if (story.model) return story.model;
  if (storyAgent(state, story).other) return null;
  const steps = escalation(state.escalate);
  if (steps.length) return steps[Math.min(Math.max(attempt, 1), steps.length) - 1]!;
  return state.model ?? null;
}
