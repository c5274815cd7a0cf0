/**
 * The reviewer's prompt (`--review`): what the attempt was for (the story, its tasks, the change's
 * scenarios), what it changed (its diff against the checkpoint, bounded), and how to answer.
 */
import { relative } from "node:path";
import type { StorySource } from "../../stories/source.ts";
import type { Story } from "../../stories/story.ts";

/** How much of the diff the prompt carries; the rest is in the diff file, which the prompt names. */
export const REVIEW_DIFF_BYTES = 100 * 1024;

export interface ReviewPromptInput {
  worktree: string;
  task: string;
  source: StorySource;
  story: Story;
  verify: string | null;
  diff: { text: string; bytes: number; file: string };
}

/** A code fence longer than any run of backticks in `text`, so the diff cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  return "`".repeat(Math.max(3, longest + 1));
}

export function buildReviewPrompt(p: ReviewPromptInput): string {
  const rel = (f: string) => relative(p.worktree, f) || f;
  const parts: string[] = [];
  parts.push(
    `You are the reviewer of another agent's work, in the git worktree ${p.worktree}. It reported this story COMPLETE` +
      (p.verify ? ` and the check \`${p.verify}\` passed` : "") +
      `. Decide whether the work really does what the story asks, correctly and completely. You may read files and run ` +
      `commands (tests, builds) to check, but do not change anything: whatever you change in the worktree is put back before your verdict counts.`,
  );
  parts.push(`## Overall task\n\n${p.task}`);
  if (p.source.kind !== "manual") {
    const tasks = p.story.tasks.map((t) => `- [${t.done ? "x" : " "}] ${t.text}`).join("\n");
    parts.push(`## The story: ${p.story.id}. ${p.story.title}\n\nIts tasks, from ${rel(p.source.tasksFile)}:\n\n${tasks}`);
  }
  if (p.source.kind === "openspec" && p.source.change.scenarios.length)
    parts.push(
      `## Scenarios of the OpenSpec change ${p.source.change.name}\n\n` +
        `The change must satisfy these:\n\n${p.source.change.scenarios.map((s) => `### ${s}`).join("\n\n")}`,
    );
  const shown = Buffer.byteLength(p.diff.text);
  const cut = shown < p.diff.bytes;
  const fence = fenceFor(p.diff.text);
  parts.push(
    `## What the attempt changed (its diff against the checkpoint the attempt started from)\n\n` +
      (p.diff.bytes === 0
        ? "The diff is empty: the attempt changed no file."
        : `${fence}diff\n${p.diff.text}${p.diff.text.endsWith("\n") ? "" : "\n"}${fence}` +
          (cut ? `\n\nThe diff was cut here: it shows ${shown} of its ${p.diff.bytes} bytes. The whole diff is in ${p.diff.file}; read the rest there.` : "")),
  );
  parts.push(
    `## Your verdict\n\n` +
      `End your final message with exactly one verdict:\n` +
      `- \`<review>APPROVE</review>\` when the story's work is done and correct;\n` +
      `- \`<review>CHANGES: reason</review>\` when it is not, with what is wrong and what to do: ` +
      `the reason is given to the next attempt, whose work starts again from the checkpoint.\n` +
      `The verdict must be the very last thing in your final message, as plain text outside any code block: ` +
      `nothing after it counts as a verdict, and neither does one in a code block or in the middle of a message.`,
  );
  return parts.join("\n\n") + "\n";
}
