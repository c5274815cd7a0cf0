/**
 * A tasks file (stories as `## N. Title` with checkbox tasks), its stories' prerequisites (`(after 1, 2)`),
 * models and agents named in headings, ticked and unticked boxes, and the ids the loop knows them by.
 */
import type { Rng } from "./rng.ts";
import { plain, text } from "./texts.ts";

export interface PlannedStory {
  id: string;
  title: string;
  complete: boolean;
}

/** A title that survives as a heading's text (one line, no trailing parentheses the parser would take). */
const headingTitle = (r: Rng) => (r.chance(0.6) ? plain(r) : text(r)).replace(/[\r\n\u2028\u2029]+/g, " ").trim() || "Untitled";

export function tasksFile(
  r: Rng,
  count = r.weighted([
    [1, 0],
    [6, r.int(1, 6)],
    [2, r.int(7, 30)],
    [1, r.int(100, 300)],
  ] as const),
): { text: string; stories: PlannedStory[] } {
  const stories: PlannedStory[] = [];
  const parts: string[] = [r.chance(0.5) ? `# ${plain(r)}\n\nSome prose before the stories.\n` : ""];
  for (let i = 1; i <= count; i++) {
    const numbered = r.chance(0.85);
    const title = headingTitle(r);
    const id = numbered
      ? String(i)
      : title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, "") || `section-${i}`;
    const after =
      i > 1 && r.chance(0.3)
        ? ` (after ${Array.from({ length: r.int(1, Math.min(3, i - 1)) }, () => r.int(1, i - 1)).join(r.chance(0.5) ? ", " : " and ")})`
        : "";
    const named = r.chance(0.15)
      ? ` (model: ${r.pick(["opus", "sonnet", "gpt-5"])})`
      : r.chance(0.1)
        ? ` (agent: ${r.pick(["codex", "gemini", "claude"])})`
        : "";
    const tasks = r.int(1, 5);
    let done = 0;
    const lines: string[] = [];
    for (let t = 1; t <= tasks; t++) {
      const ticked = r.chance(0.5);
      if (ticked) done++;
      lines.push(`- [${ticked ? (r.chance(0.8) ? "x" : "X") : " "}] ${i}.${t} ${r.chance(0.8) ? plain(r) : text(r).replace(/\n/g, " ")}`);
    }
    parts.push(`## ${numbered ? `${i}. ` : ""}${title}${after}${named}\n${lines.join("\n")}\n`);
    stories.push({ id, title, complete: done === tasks });
  }
  if (r.chance(0.1)) parts.push("## Notes\nA section with no checkbox is prose, not a story.\n");
  return { text: parts.join("\n"), stories };
}
