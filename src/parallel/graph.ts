/**
 * `--parallel`: which stories may start now. A story is ready when it is not complete, not already in a lane,
 * and every prerequisite its heading names (`## 3. CLI (after 1, 2)`, Story.after) is integrated.
 */
import { isComplete, type Story } from "../stories/story.ts";

export function readyStories(stories: Story[], integrated: ReadonlySet<string>, busy: ReadonlySet<string>): Story[] {
  return stories.filter((s) => !isComplete(s) && !integrated.has(s.id) && !busy.has(s.id) && (s.after ?? []).every((p) => integrated.has(p)));
}
