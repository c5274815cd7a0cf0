/**
 * The audit's gaps as a story (docs/how-it-works.md "The audit"): appended to the tasks file as
 * `## N. Gaps found by the audit (round R)`, one task per gap, N one past the highest story number — the
 * loop then reads it back like any story the user wrote. Written whole through a temporary file (never
 * through a link), so a kill leaves the file as it was or with the whole story.
 */
import { readFile } from "node:fs/promises";
import { writeFileSafe } from "../proc/safe-fs.ts";
import { parseStories, type PlannedStory } from "./story.ts";

export const GAPS_TITLE = "Gaps found by the audit";

/** One line per gap: a line break in a gap would make it two tasks, or prose. */
const oneLine = (gap: string) => gap.replace(/\s+/g, " ").trim();

/** The same gap, however it is spaced or capitalised. */
export const sameGap = (a: string, b: string) => oneLine(a).toLowerCase() === oneLine(b).toLowerCase();

export async function appendGapStory(worktree: string, tasksFile: string, gaps: string[], round: number): Promise<PlannedStory> {
  const text = await readFile(tasksFile, "utf8");
  const numbers = parseStories(text)
    .map((s) => Number.parseInt(s.id, 10))
    .filter(Number.isFinite);
  const id = String(Math.max(0, ...numbers) + 1);
  const title = `${GAPS_TITLE} (round ${round})`;
  const tasks = gaps.map((g, i) => `- [ ] ${id}.${i + 1} ${oneLine(g)}`).join("\n");
  const sep = text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
  writeFileSafe(worktree, tasksFile, `${text}${sep}## ${id}. ${title}\n\n${tasks}\n`);
  return { id, title };
}
