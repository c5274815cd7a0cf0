/**
 * Where a loop's stories come from, decided once at start (docs/how-it-works.md) and re-read after every
 * iteration: the agent ticks the boxes, the harness reads them back from the file.
 */
import { readFile } from "node:fs/promises";
import type { ChangeContext } from "./openspec.ts";
import { parseStories, type Story } from "./story.ts";

export type StorySource =
  | { kind: "openspec"; tasksFile: string; change: ChangeContext }
  | { kind: "tasks-file"; tasksFile: string }
  /** Written from GitHub issues at start (github/issue-source.ts), then read like any tasks file. */
  | { kind: "issue"; tasksFile: string }
  | { kind: "manual"; task: string };

export async function loadStories(source: StorySource): Promise<Story[]> {
  switch (source.kind) {
    case "openspec":
    case "tasks-file":
    case "issue":
      return parseStories(await readFile(source.tasksFile, "utf8"));
    case "manual":
      return [{ id: "1", title: firstLine(source.task), tasks: [] }];
  }
}

export function firstLine(text: string, max = 80): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}
