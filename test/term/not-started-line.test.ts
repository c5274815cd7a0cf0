// `status` reads the stories not started only when the tasks file has a story with prerequisites: the set of
// stories begun is no longer made of all its iterations (500 at start-up) first. The line must be what it
// was; the reference is notStartedLine as it was at 775262e, compared on generated loops and tasks files.
import { describe, expect, test } from "bun:test";
import { afterLabel } from "../../src/parallel/graph.ts";
import type { State } from "../../src/state/schema.ts";
import { isComplete, type Story } from "../../src/stories/story.ts";
import { notStartedLine } from "../../src/term/lanes-view.ts";
import { field } from "../../src/text/format.ts";
import { sampleIteration, sampleLane, sampleState } from "../helpers/state.ts";
import { seeded } from "../helpers/seeded.ts";

function notStartedLineBefore(s: State, stories: Story[] | undefined, width: number): string | null {
  if (!stories) return null;
  const begun = new Set([...s.iterations.map((i) => i.story_id), ...s.lanes.map((l) => l.story_id), s.current_story?.id]);
  const waiting = stories.filter((st) => st.after?.length && !isComplete(st) && !begun.has(st.id));
  if (!waiting.length) return null;
  return `Not started: ${waiting.map((st) => `${field(st.id, width)}. ${field(st.title, width)} (${afterLabel(st)})`).join(" · ")}`;
}

describe("notStartedLine", () => {
  test("is what it was on 2,000 generated loops and tasks files", () => {
    const r = seeded(31);
    const id = () => String(1 + Math.floor(r() * 8));
    let lines = 0;
    for (let n = 0; n < 2_000; n++) {
      const stories: Story[] = Array.from({ length: Math.floor(r() * 7) }, (_, k) => ({
        id: r() < 0.9 ? String(k + 1) : `${k + 1}~2`,
        title: `Story ${k}`,
        tasks: Array.from({ length: Math.floor(r() * 3) }, () => ({ text: "t", done: r() < 0.5, line: 1 })),
        ...(r() < 0.5 ? { after: r() < 0.2 ? [] : Array.from({ length: 1 + Math.floor(r() * 2) }, id) } : {}),
      }));
      const s = sampleState({
        iterations: Array.from({ length: Math.floor(r() * 6) }, (_, k) => sampleIteration(k + 1, { story_id: r() < 0.1 ? null : id() })),
        lanes: r() < 0.3 ? [sampleLane(id(), "L")] : [],
        current_story: r() < 0.5 ? { id: id(), title: "C", index: 1, attempt: 1 } : null,
      });
      const width = 10 + Math.floor(r() * 70);
      const given = r() < 0.05 ? undefined : stories;
      const got = notStartedLine(s, given, width);
      expect(got).toBe(notStartedLineBefore(s, given, width));
      if (got) lines++;
    }
    expect(lines).toBeGreaterThan(200);
  });
});
