/**
 * The auditor's prompt (`--audit`, docs/how-it-works.md "The audit"). Written to resist agreeing with the
 * implementer: a fresh session reads the goal first (the task, and for an OpenSpec change its proposal,
 * design and every requirement with its scenarios), is told the implementer *claims* it is done, then gets
 * the evidence (the whole diff since the loop began, the check's latest output, the stories as ticked),
 * and is asked for concrete gaps tied to a requirement or scenario, not for an opinion of the work.
 */
import { relative } from "node:path";
import type { Requirement } from "../../stories/requirements.ts";
import type { Story } from "../../stories/story.ts";
import { fenceFor } from "./review-prompt.ts";

export interface AuditPromptInput {
  worktree: string;
  task: string;
  /** An OpenSpec change: its name, its proposal and design (path and text) and its requirements. */
  change: { name: string; documents: { file: string; text: string }[]; requirements: Requirement[] } | null;
  tasksFile: string;
  stories: Story[];
  verify: { command: string; output: { text: string; bytes: number; file: string } | null } | null;
  diff: { text: string; bytes: number; file: string };
  /** Gaps earlier rounds found: the stories written for them are in the list, and finding one again ends the loop. */
  earlierGaps: string[];
}

const fenced = (text: string, info = "") => {
  const f = fenceFor(text);
  return `${f}${info}\n${text}${text.endsWith("\n") ? "" : "\n"}${f}`;
};

export function buildAuditPrompt(p: AuditPromptInput): string {
  const rel = (f: string) => relative(p.worktree, f) || f;
  const parts: string[] = [];
  parts.push(
    `You are the auditor of a change made by another agent in the git worktree ${p.worktree}. That agent worked through a list of ` +
      `stories and claims every one is done. Your job is not to agree with it: find what the change's goal asks for that the work ` +
      `does not do. The goal comes first below, then the evidence. Read files and run commands (tests, builds) to check; do not ` +
      `change anything: whatever you change in the worktree is put back before your verdict counts.`,
  );
  parts.push(`## The goal\n\n${p.task}`);
  if (p.change) {
    for (const d of p.change.documents) parts.push(`### ${rel(d.file)}\n\n${fenced(d.text, "markdown")}`);
    if (p.change.requirements.length)
      parts.push(
        `### Requirements of the OpenSpec change ${p.change.name}\n\nEach one must hold, and each scenario must pass:\n\n` +
          p.change.requirements.map(requirementText).join("\n\n"),
      );
  }
  parts.push(
    `## The implementer's claim\n\nEvery story below is ticked done in ${rel(p.tasksFile)}. Ticks are the implementer's word, not evidence.\n\n` +
      p.stories.map((s) => `### ${s.id}. ${s.title}\n${s.tasks.map((t) => `- [${t.done ? "x" : " "}] ${t.text}`).join("\n")}`).join("\n\n"),
  );
  const cut = Buffer.byteLength(p.diff.text) < p.diff.bytes;
  parts.push(
    `## What the loop changed (the whole diff since it began)\n\n` +
      (p.diff.bytes === 0
        ? "The diff is empty: nothing changed since the loop began."
        : fenced(p.diff.text, "diff") +
          (cut ? `\n\nThe diff was cut here (${Buffer.byteLength(p.diff.text)} of ${p.diff.bytes} bytes); the whole diff is in ${p.diff.file}.` : "")),
  );
  if (p.verify) {
    const out = p.verify.output;
    parts.push(
      `## The check\n\nThe loop's check is \`${p.verify.command}\`. ` +
        (out
          ? `Its latest output${
              Buffer.byteLength(out.text) < out.bytes ? ` (its last ${Buffer.byteLength(out.text)} of ${out.bytes} bytes; all of it in ${out.file})` : ""
            }:\n\n${fenced(out.text)}\n\nA check that passes shows only what it tests.`
          : "It has not run in this run of the loop."),
    );
  }
  if (p.earlierGaps.length)
    parts.push(
      `## Gaps an earlier audit found\n\nThese became stories above and were implemented:\n\n${p.earlierGaps.map((g) => `- ${g}`).join("\n")}\n\n` +
        `If one of them is still not closed, name it again with the same words: the loop then stops and asks a person.`,
    );
  parts.push(
    `## Your verdict\n\n` +
      `End your final message with exactly one verdict:\n` +
      `- \`<audit>PASS</audit>\` when every requirement and scenario of the goal is met by the work as it is;\n` +
      `- otherwise \`<audit>\`, then one line per gap, \`GAP: <a concrete task that closes it> (<the requirement or scenario it is for>)\`, ` +
      `then \`</audit>\`. ` +
      `Each gap becomes a task of a new story for the implementer: say what to do, not only what is wrong. Name only real gaps against the goal, not style.\n` +
      `The verdict must be the very last thing in your final message, as plain text outside any code block.`,
  );
  return parts.join("\n\n") + "\n";
}

function requirementText(r: Requirement): string {
  const head = `#### Requirement: ${r.name} (${r.operation || "spec"} in ${r.capability})`;
  const scenarios = r.scenarios.map((s) => `- Scenario: ${s.name}\n${s.lines.map((l) => `  ${l}`).join("\n")}`);
  return [head, ...r.text, ...scenarios].join("\n");
}
