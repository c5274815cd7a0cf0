/**
 * Stories (docs/how-it-works.md): the `## ` sections of a tasks.md, each with its checkbox tasks. A section
 * without a single checkbox is prose, not work, and makes no story.
 */
import { parseTaskLine, type Task } from "./checkbox.ts";

export interface Story {
  id: string;
  title: string;
  tasks: Task[];
  /**
   * Prerequisites named in the heading (`## 3. CLI (after 1, 2)`): under `--parallel` the story starts only once these
   * are integrated. Absent or empty: independent. One after another (`--parallel 1`) the file's order stands.
   */
  after?: string[];
  /** The model named in the heading (`## 3. Migrate the schema (model: opus)`): every attempt at it asks for this one. */
  model?: string;
  /** An agent named in the heading (`(agent: codex)`): its attempts run that agent (agents/story-agent.ts), as the heading gave it. */
  agent?: string;
}

export const isComplete = (s: Story) => s.tasks.length > 0 && s.tasks.every((t) => t.done);

/** A story as the loop planned it at start: the plan is done only when each of these is complete. */
export interface PlannedStory {
  id: string;
  title: string;
}

/**
 * The planned stories the file no longer has: removed, renamed, or stripped of every checkbox (a
 * section without checkboxes makes no story). Such a story is not complete, whatever the rest says.
 */
export const missingFromPlan = (planned: PlannedStory[], stories: Story[]): PlannedStory[] => planned.filter((p) => !stories.some((s) => s.id === p.id));

export const describeStories = (stories: PlannedStory[]) => stories.map((s) => `${s.id} "${s.title}"`).join(", ");

/** "after 1, 2": a story's prerequisites as its heading names them; empty when it has none. */
export const afterLabel = (s: Pick<Story, "after">) => (s.after?.length ? `after ${s.after.join(", ")}` : "");

/** The heading as the file has it, near enough to find: `## 3. CLI (after 1, 2)`, `## Set up the db (after 1)`, `## 4. Migrate (model: opus)`. */
export function headingOf(s: Story): string {
  const number = /^\d+(?:\.\d+)*/.exec(s.id.replace(/~\d+$/, ""))?.[0];
  const after = afterLabel(s);
  const named = [s.model ? ` (model: ${s.model})` : "", s.agent ? ` (agent: ${s.agent})` : ""].join("");
  return `## ${number && number === s.id.replace(/~\d+$/, "") ? `${number}. ` : ""}${s.title}${after ? ` (${after})` : ""}${named}`;
}

const HEADING = /^##\s+(.*?)\s*#*\s*$/;
const NUMBERED = /^(\d+(?:\.\d+)*)[.)]?\s+(.+)$/;

/** Splits a tasks.md into stories. Without `## ` headings the whole file is one story. */
export function parseStories(markdown: string, fallbackTitle = "Tasks"): Story[] {
  const stories: Story[] = [];
  let current: Story = { id: "0", title: "Tasks before the first section", tasks: [] };
  let headings = 0;
  markdown.split("\n").forEach((line, i) => {
    const h = HEADING.exec(line);
    if (h && !line.startsWith("###")) {
      stories.push(current);
      headings++;
      const num = NUMBERED.exec(h[1] ?? "");
      const { text, after, model, agent } = splitHeading(num ? num[2]! : (h[1] ?? ""));
      current = num ? { id: num[1]!, title: text, tasks: [] } : { id: slug(text, headings), title: text, tasks: [] };
      if (after) current.after = after;
      if (model) current.model = model;
      if (agent) current.agent = agent;
      return;
    }
    const task = parseTaskLine(line, i + 1);
    if (task) current.tasks.push(task);
  });
  stories.push(current);
  if (headings === 0) {
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? fallbackTitle;
    return current.tasks.length ? [{ id: "1", title, tasks: current.tasks }] : [];
  }
  return dedupeIds(stories.filter((s) => s.tasks.length > 0));
}

/** `(after 1, 2)` or `(after 1 and set-up-db)` at the heading's end; ids have no spaces, so `(after the migration)` is title. */
const AFTER = /^(.*\S)\s*\(\s*after\s+([^()]*?)\s*\)$/i;
/** `(model: opus)` or `(agent: codex)` at the heading's end: one name, no spaces. */
const NAMED = /^(.*\S)\s*\(\s*(model|agent)\s*:\s*([^\s()]+)\s*\)$/i;
const ID = /^[^\s,()]+$/;

interface Heading {
  text: string;
  after: string[] | null;
  model: string | null;
  agent: string | null;
}

/** Takes the parentheses a heading ends with — prerequisites, a model, an agent — in any order; the rest is the title. */
function splitHeading(heading: string): Heading {
  const out: Heading = { text: heading, after: null, model: null, agent: null };
  for (;;) {
    const named = NAMED.exec(out.text);
    if (named && out[named[2]!.toLowerCase() as "model" | "agent"] === null) {
      out[named[2]!.toLowerCase() as "model" | "agent"] = named[3]!;
      out.text = named[1]!;
      continue;
    }
    const m = out.after === null ? AFTER.exec(out.text) : null;
    const ids = m?.[2]?.split(/\s*,\s*|\s+and\s+/i).filter((id) => id !== "") ?? [];
    if (m && ids.length > 0 && ids.every((id) => ID.test(id))) {
      out.after = ids;
      out.text = m[1]!;
      continue;
    }
    return out;
  }
}

function slug(text: string, ordinal: number): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return s || `section-${ordinal}`;
}

/** Two sections with the same number or title still need distinct ids for checkpoints and events. */
function dedupeIds(stories: Story[]): Story[] {
  const seen = new Map<string, number>();
  return stories.map((s) => {
    const n = (seen.get(s.id) ?? 0) + 1;
    seen.set(s.id, n);
    return n === 1 ? s : { ...s, id: `${s.id}~${n}` };
  });
}
