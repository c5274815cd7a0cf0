/**
 * `--parallel`: the prerequisites graph of the stories (docs/parallel.md). A heading names the stories it
 * needs (`## 3. CLI (after 1, 2)`, Story.after); which may start now, what would run at once, and what
 * in the graph can never be met — refused at start whatever `--parallel` is, since it is always a mistake.
 */
import { afterLabel, headingOf, isComplete, type Story } from "../stories/story.ts";

export { afterLabel, headingOf };

/** Which stories may start now: not complete, not already in a lane, every prerequisite integrated. */
export function readyStories(stories: Story[], integrated: ReadonlySet<string>, busy: ReadonlySet<string>): Story[] {
  return stories.filter((s) => !isComplete(s) && !integrated.has(s.id) && !busy.has(s.id) && (s.after ?? []).every((p) => integrated.has(p)));
}

/**
 * What would run at once with `lanes` lanes if every story took as long: rounds of ready stories, in the
 * file's order, no more than `lanes` a round. A complete story counts as integrated; stories that can
 * never start (a circle, an unknown prerequisite) are in no wave.
 */
export function waves(stories: Story[], lanes: number): Story[][] {
  const integrated = new Set(stories.filter(isComplete).map((s) => s.id));
  const out: Story[][] = [];
  for (;;) {
    const wave = readyStories(stories, integrated, new Set()).slice(0, Math.max(1, lanes));
    if (!wave.length) return out;
    for (const s of wave) integrated.add(s.id);
    out.push(wave);
  }
}

export type GraphProblem =
  | { kind: "unknown"; story: Story; id: string }
  | { kind: "self"; story: Story }
  /** Stories that wait for each other, in the order of the circle: each is after the next, the last after the first. */
  | { kind: "cycle"; stories: Story[] };

export function graphProblems(stories: Story[]): GraphProblem[] {
  const byId = new Map(stories.map((s) => [s.id, s]));
  const problems: GraphProblem[] = [];
  for (const s of stories)
    for (const id of new Set(s.after ?? [])) {
      if (id === s.id) problems.push({ kind: "self", story: s });
      else if (!byId.has(id)) problems.push({ kind: "unknown", story: s, id });
    }
  const seen = new Set<string>();
  for (const s of stories) {
    if (seen.has(s.id)) continue;
    const circle = circleThrough(s, byId);
    if (!circle) continue;
    for (const c of circle) seen.add(c.id);
    problems.push({ kind: "cycle", stories: circle });
  }
  return problems;
}

/** The shortest circle from `start` back to it along prerequisites (a story after itself is not one here). */
function circleThrough(start: Story, byId: Map<string, Story>): Story[] | null {
  const from = new Map<string, string>();
  const queue = [start.id];
  for (let i = 0; i < queue.length; i++) {
    for (const next of byId.get(queue[i]!)?.after ?? []) {
      if (next === queue[i] || !byId.has(next)) continue;
      if (next === start.id) {
        const path = [queue[i]!];
        while (path[0] !== start.id) path.unshift(from.get(path[0]!)!);
        return path.map((id) => byId.get(id)!);
      }
      if (!from.has(next) && next !== start.id) {
        from.set(next, queue[i]!);
        queue.push(next);
      }
    }
  }
  return null;
}

const MAX_LISTED = 12;

/** The start's refusal for a tasks file whose prerequisites cannot be met, or null when they can. */
export function graphRefusal(stories: Story[], file: string): string | null {
  const problems = graphProblems(stories);
  if (!problems.length) return null;
  const all = stories.map((s) => s.id);
  const listed = all.length > MAX_LISTED ? `${all.slice(0, MAX_LISTED).join(", ")}…` : all.join(", ");
  const lines = problems.map((p) => {
    switch (p.kind) {
      case "unknown":
        return (
          `\`${headingOf(p.story)}\` names ${p.id}, which is no story of ${file} (the stories are ${listed}). ` +
          `Fix the id, or take it out of the parentheses; a section without checkbox tasks makes no story.`
        );
      case "self":
        return `\`${headingOf(p.story)}\` names itself. Take ${p.story.id} out of its parentheses.`;
      case "cycle": {
        const steps = p.stories.map((s, i) => `${s.id} after ${p.stories[(i + 1) % p.stories.length]!.id}`).join(", ");
        return `${steps}: these wait for each other, so none of them could ever start. Take one of these prerequisites out.`;
      }
    }
  });
  return (
    `${file}: the prerequisites in its headings (\`## 3. CLI (after 1, 2)\`) cannot all be met, ` +
    `so nothing was started:\n${lines.map((l) => `  - ${l}`).join("\n")}`
  );
}
