/**
 * An issue's work as a tasks file (docs/github.md), so the loop's every mechanism — box checks, `(after N)`,
 * `--parallel`, a restart — reads it as it reads any tasks.md. Pure: the text in, the markdown out.
 *
 * - Headings with checkboxes under them (`## 1. Setup`, `### Backend`): one story per heading, its boxes the tasks.
 * - Otherwise a task list (`- [ ] item`): one story per top-level item; the items nested under it are its tasks too.
 * - No checkbox at all: the whole issue is one story (`shape: "whole"`, which the caller says).
 */
import { parseTaskLine } from "./checkbox.ts";

export interface IssueText {
  number: number;
  title: string;
  body: string;
  url: string;
}

export type IssueShape = "sections" | "items" | "whole";

const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(```|~~~)/;

/** The body's lines outside code fences (a box in an example is not work), with Windows line ends undone. */
export function workLines(body: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of body.replace(/\r\n?/g, "\n").split("\n")) {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced) out.push(line);
  }
  return out;
}

const isBox = (line: string) => parseTaskLine(line, 0) !== null;
const indent = (line: string) => /^\s*/.exec(line)![0].replace(/\t/g, "    ").length;
/** A heading's text cannot hold a line break or start a new heading level; a title may have either. */
const headingText = (s: string) => s.replace(/\s+/g, " ").trim() || "Untitled";

export function issueTasks(issue: IssueText): { markdown: string; shape: IssueShape; stories: number } {
  const lines = workLines(issue.body);
  const sections: { title: string; lines: string[] }[] = [{ title: "Tasks", lines: [] }];
  for (const line of lines) {
    const h = HEADING.exec(line);
    if (h) sections.push({ title: headingText(h[1] ?? ""), lines: [] });
    else sections.at(-1)!.lines.push(line);
  }
  const head = `# Issue #${issue.number}: ${headingText(issue.title)}\n\n${provenance(issue.url)}\n`;
  const withBoxes = sections.filter((s) => s.lines.some(isBox));
  // Boxes only before the first heading are a plain task list, not a section called "Tasks".
  if (withBoxes.length && !(withBoxes.length === 1 && withBoxes[0] === sections[0])) {
    const body = withBoxes.map((s) => `## ${s.title}\n\n${s.lines.filter(isBox).join("\n")}\n`);
    return { markdown: `${head}\n${body.join("\n")}`, shape: "sections", stories: withBoxes.length };
  }
  const items = topLevelItems(lines);
  if (items.length) {
    const body = items.map((it, i) => `## ${i + 1}. ${headingText(parseTaskLine(it[0]!, 0)!.text)}\n\n${it.join("\n")}\n`);
    return { markdown: `${head}\n${body.join("\n")}`, shape: "items", stories: items.length };
  }
  return { markdown: `${head}\n## 1. ${headingText(issue.title)}\n\n- [ ] ${wholeTask(issue)}\n`, shape: "whole", stories: 1 };
}

export const wholeTask = (issue: { number: number; title: string }) => `Resolve issue #${issue.number}: ${headingText(issue.title)}`;

/** Each top-level box with the boxes nested under it (deeper indent), in order. */
function topLevelItems(lines: string[]): string[][] {
  const boxes = lines.filter(isBox);
  if (!boxes.length) return [];
  const top = Math.min(...boxes.map(indent));
  const items: string[][] = [];
  for (const line of boxes) {
    if (indent(line) <= top) items.push([line.trimStart()]);
    else items.at(-1)?.push(line);
  }
  return items;
}

const provenance = (url: string) =>
  `<!-- Written by wt-loop from ${url}. The loop ticks these boxes as stories are accepted; the issue itself is the task. ` +
  "Delete this file to read the issue again. -->";

/** `after #12` in an issue's body: the issues it waits for. */
export function prerequisites(body: string): number[] {
  return [
    ...new Set(
      [
        ...workLines(body)
          .join("\n")
          .matchAll(/\bafter\s+#(\d+)\b/gi),
      ].map((m) => Number(m[1])),
    ),
  ];
}

/**
 * One story per issue (`--issues SEARCH`), id = the issue's number, `(after 7)` when its body says `after #7` and #7
 * is among them; its tasks are the issue's boxes, or one box for the whole issue. `outside`: prerequisites not found.
 */
export function searchTasks(issues: IssueText[], heading: string): { markdown: string; outside: { issue: number; waitsFor: number }[] } {
  const numbers = new Set(issues.map((i) => i.number));
  const outside: { issue: number; waitsFor: number }[] = [];
  const stories = issues.map((issue) => {
    const wants = prerequisites(issue.body).filter((n) => n !== issue.number);
    for (const n of wants) if (!numbers.has(n)) outside.push({ issue: issue.number, waitsFor: n });
    const after = wants.filter((n) => numbers.has(n));
    const boxes = workLines(issue.body).filter(isBox);
    const tasks = boxes.length ? boxes.join("\n") : `- [ ] ${wholeTask(issue)}`;
    return `## ${issue.number}. ${headingText(issue.title)}${after.length ? ` (after ${after.join(", ")})` : ""}\n\n${issue.url}\n\n${tasks}\n`;
  });
  return { markdown: `# ${headingText(heading)}\n\n${provenance(issues.map((i) => i.url).join(", "))}\n\n${stories.join("\n")}`, outside };
}
