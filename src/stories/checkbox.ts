/**
 * Checkbox tasks, counted exactly as OpenSpec counts them (its parser's regex, applied to every
 * line, code fences included): `-`, `*`, `+`, `1.` or `1)` bullets at any indent; only x/X is done.
 */
const CHECKBOX = /^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)/;

export interface Task {
  text: string;
  done: boolean;
  /** 1-based line number in the file. */
  line: number;
}

export function parseTaskLine(line: string, lineNo: number): Task | null {
  const m = CHECKBOX.exec(line);
  if (!m) return null;
  return { text: (m[2] ?? "").trim(), done: m[1] === "x" || m[1] === "X", line: lineNo };
}

export function parseTasks(markdown: string): Task[] {
  const tasks: Task[] = [];
  markdown.split("\n").forEach((line, i) => {
    const t = parseTaskLine(line, i + 1);
    if (t) tasks.push(t);
  });
  return tasks;
}
