/**
 * What a restart reads from a loop's state file (setup/prepare.ts, checkpoint/resume.ts): all of it but what only shows
 * the loop as it runs — the time of the write, the iteration's number and story, the counts, the agent's pid — which
 * count through the one thing a restart decides by them: the story whose work in the tree is unchecked
 * (ending.ts uncheckedStory). Two states with the same facts make a restart do the same (record/store.ts forces a
 * write to the disk only when its facts differ from the last forced one's).
 */
import { uncheckedStory } from "./ending.ts";
import type { State } from "./schema.ts";

export function restartFacts(s: State): string {
  const shown = {
    updated_at: null,
    current_iteration: null,
    current_story: null,
    stories_total: null,
    stories_completed: null,
    agent_pid: null,
    agent_started: null,
  };
  return JSON.stringify({ ...s, ...shown, unchecked: uncheckedStory(s) });
}
