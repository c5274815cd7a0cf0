/**
 * The loop screen's tabs other than Agent, for one story: its boxes as the tasks file has them now,
 * the files its attempts changed, its verify output, and its prompts. Each is rebuilt only when what
 * it shows changed (the record moved, the tasks file or a log was written), never every frame.
 */
import { readFileSync, statSync } from "node:fs";
import { parseStories } from "../stories/story.ts";
import { inertLine } from "../term/inert.ts";
import { readTail } from "./log-tail.ts";
import { AUDIT_ENTRY, type AttemptRecord, type StoryEntry } from "./story-record.ts";
import { block, BlockList, shown } from "./text-blocks.ts";

export const TABS = ["Agent", "Tasks", "Files", "Verify", "Prompt"] as const;
export type TabName = (typeof TABS)[number];

/** Output shown per verify log and per prompt: their ends, which say why (the files keep all of it). */
const SHOWN_BYTES = 256 * 1024;

const stamp = (path: string | null) => {
  if (!path) return "-";
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return "missing";
  }
};

const attemptTitle = (a: AttemptRecord) => `── attempt ${a.attempt} · iteration ${a.iteration}${a.outcome ? ` · ${a.outcome}` : " · running"} ──`;

/** What a tab's content depends on beyond the record: the files it reads, by time and size. */
export function tabStamp(tab: TabName, s: StoryEntry | null, tasksFile: string | null): string {
  if (!s) return "";
  switch (tab) {
    case "Agent":
    case "Files":
      return "";
    case "Tasks":
      return stamp(tasksFile);
    case "Verify":
      return s.attempts.map((a) => stamp(a.verifyLog)).join(",");
    case "Prompt":
      return s.attempts.map((a) => stamp(a.promptFile)).join(",");
  }
}

/** The attempts a tab shows one at a time (Verify: those that ran --verify; Files, Prompt: every one); none for the other tabs. */
export function attemptsOf(tab: TabName, s: StoryEntry | null): AttemptRecord[] {
  if (!s) return [];
  if (tab === "Verify") return s.attempts.filter((a) => a.verifyLog);
  return tab === "Prompt" || tab === "Files" ? s.attempts : [];
}

/** Which of `n` attempts is shown: the one picked (by its place), else the latest. */
export const pickedAt = (n: number, pick: number | null) => (pick === null ? n - 1 : Math.max(0, Math.min(n - 1, pick)));

/** The active tab's name on screen: Files, Verify and Prompt name the attempt they show (`Prompt · attempt 2 (2/3)`). */
export function tabTitle(tab: TabName, s: StoryEntry | null, pick: number | null): string {
  const list = attemptsOf(tab, s);
  if (!list.length) return tab;
  const at = pickedAt(list.length, pick);
  return `${tab} · attempt ${list[at]!.attempt} (${at + 1}/${list.length})`;
}

export function buildTab(
  tab: Exclude<TabName, "Agent">,
  s: StoryEntry | null,
  o: { tasksFile: string | null; note: string | null; pick: number | null },
): BlockList {
  const out = new BlockList();
  if (!s) {
    out.push(block("No story yet: the loop has not read its plan.", "dim"));
    return out;
  }
  switch (tab) {
    case "Tasks":
      return tasks(out, s, o.tasksFile);
    case "Files":
      return files(out, s, o.pick);
    case "Verify":
      return verify(out, s, o.pick);
    case "Prompt":
      return prompts(out, s, o.note, o.pick);
  }
}

function tasks(out: BlockList, s: StoryEntry, tasksFile: string | null): BlockList {
  if (!tasksFile) {
    out.push(block("This loop has no tasks file: the agent says when the task is complete.", "dim"));
    return out;
  }
  let text: string;
  try {
    text = readFileSync(tasksFile, "utf8");
  } catch {
    out.push(block(shown(`The tasks file ${tasksFile} cannot be read now.`), "bad"));
    return out;
  }
  if (s.id === AUDIT_ENTRY) {
    out.push(block("The audit is not a story: its verdicts and the gaps it found are in the Agent tab; gaps become a story of the tasks file.", "dim"));
    return out;
  }
  const story = parseStories(text).find((x) => x.id === s.id);
  if (!story) {
    out.push(block(shown(`The tasks file has no story ${s.id} now.`), "warn"));
    return out;
  }
  const done = story.tasks.filter((t) => t.done).length;
  out.push(block(`${done}/${story.tasks.length} tasks ticked in ${inertLine(tasksFile)}`, "dim"));
  for (const t of story.tasks) out.push(block(shown(`${t.done ? "[x]" : "[ ]"} ${t.text}`), t.done ? "good" : "normal"));
  return out;
}

const MARK = { added: "A", modified: "M", deleted: "D", "type-changed": "T" } as const;

function files(out: BlockList, s: StoryEntry, pick: number | null): BlockList {
  if (!s.attempts.length) {
    out.push(block("No attempt at this story yet.", "dim"));
    return out;
  }
  const a = s.attempts[pickedAt(s.attempts.length, pick)]!;
  others(out, s.attempts.length);
  out.push(block(attemptTitle(a), "accent", { bold: true }));
  if (!a.outcome) out.push(block("  (the files are measured when the attempt ends)", "dim"));
  else if (!a.files.length) out.push(block("  no files changed", "dim"));
  for (const f of a.files) out.push(block(inertLine(`  ${MARK[f.status]} ${f.path}`), f.status === "deleted" ? "bad" : "normal"));
  if (a.diffFile) out.push(block("Enter: the diff this attempt made", "dim"));
  else if (a.files.length) out.push(block("(no diff was recorded for this attempt)", "dim"));
  return out;
}

/** Over an attempt's text, when the story has others: how to reach them. */
function others(out: BlockList, n: number): void {
  if (n > 1) out.push(block(`[ ] or ← → : the story's other attempts (${n} in all)`, "dim"));
}

function verify(out: BlockList, s: StoryEntry, pick: number | null): BlockList {
  const runs = attemptsOf("Verify", s);
  if (!runs.length) out.push(block("No --verify run for this story (it runs after an attempt says COMPLETE).", "dim"));
  else {
    const a = runs[pickedAt(runs.length, pick)]!;
    others(out, runs.length);
    out.push(block(`${attemptTitle(a)} verify ${a.verify ?? ""}`, a.verify === "failed" ? "bad" : "accent", { bold: true }));
    fileTail(out, a.verifyLog!);
  }
  return out;
}

function prompts(out: BlockList, s: StoryEntry, note: string | null, pick: number | null): BlockList {
  if (!s.attempts.length) out.push(block("No attempt at this story yet.", "dim"));
  else {
    const a = s.attempts[pickedAt(s.attempts.length, pick)]!;
    others(out, s.attempts.length);
    out.push(block(attemptTitle(a), "accent", { bold: true }));
    if (a.promptFile) fileTail(out, a.promptFile);
    else out.push(block("  (this loop's log names no prompt file: it was written before prompts were kept)", "dim"));
  }
  if (note) {
    out.push(block("── the note the next prompt carries ──", "warn", { bold: true }));
    out.push(block(shown(note), "warn"));
  }
  return out;
}

function fileTail(out: BlockList, path: string): void {
  const t = readTail(path, SHOWN_BYTES);
  if (!t) return out.push(block(shown(`  (${path} is not there yet)`), "dim"));
  if (t.cut) out.push(block(shown(`  … the start is cut: the whole file is ${path}`), "dim"));
  out.push(block(shown(t.text.replace(/\n$/, "")), "normal"));
}
