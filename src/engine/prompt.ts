/**
 * The prompt for one attempt at one story: what to do, where the context is, how to report.
 * Everything the agent must obey is stated here, because it is all the agent sees.
 */
import { relative } from "node:path";
import { loopPaths } from "../state/paths.ts";
import type { StorySource } from "../stories/source.ts";
import { isComplete, type Story } from "../stories/story.ts";

export interface PromptInput {
  worktree: string;
  task: string;
  source: StorySource;
  story: Story;
  index: number;
  total: number;
  learningsFile: string;
  /** Why the previous attempt at this story failed; absent on a first attempt or after no_signal. */
  retryReason?: string;
  attempt: number;
  maxRetries: number;
  /** `--verify CMD`: told up front, so the agent can run it itself before it claims COMPLETE. */
  verify?: string | null;
  /** Notes from the user (`wt-loop note`), oldest first: given as they were written, as data. */
  notes?: string[];
  /** `--review`: the agent knows a second agent will read its diff before its COMPLETE counts. */
  review?: string | null;
}

/**
 * The prompt a run would start with: the first unfinished story's first attempt (what `--dry-run` and the
 * selection screen's preview show). Null when every story is complete.
 */
export function firstPrompt(
  plan: { task: string; source: StorySource; stories: Story[] },
  worktree: string,
  o: { maxRetries: number; verify: string | null },
): string | null {
  const first = plan.stories.find((s) => !isComplete(s));
  if (!first) return null;
  return buildPrompt({
    worktree,
    task: plan.task,
    source: plan.source,
    story: first,
    index: plan.stories.indexOf(first) + 1,
    total: plan.stories.length,
    learningsFile: loopPaths(worktree).learnings,
    attempt: 1,
    maxRetries: o.maxRetries,
    verify: o.verify,
  });
}

export function buildPrompt(p: PromptInput): string {
  const rel = (f: string) => relative(p.worktree, f) || f;
  const parts: string[] = [];
  parts.push(`You are working autonomously in the git worktree ${p.worktree}.`);
  const whole = (field: string) => `the whole text is in ${rel(loopPaths(p.worktree).state)} (${field})`;
  parts.push(`## Overall task\n\n${capped(p.task, TASK_BYTES, "the task", whole("its `task`"))}`);

  if (p.source.kind === "manual") {
    parts.push(`## Your job\n\nDo the task above completely. Work until it is done and verified.`);
  } else {
    const tasks = p.story.tasks.map((t) => `- [${t.done ? "x" : " "}] ${t.text}`).join("\n");
    parts.push(
      `## Your story: ${p.story.id}. ${p.story.title} (story ${p.index} of ${p.total})\n\n` +
        `Work only on this story. Its tasks, from ${rel(p.source.tasksFile)}:\n\n${tasks}\n\n` +
        `When a task is done and verified, tick its box in ${rel(p.source.tasksFile)} by changing \`- [ ]\` to \`- [x]\` on its line. ` +
        `The harness reads that file: a task whose box is not ticked is not done. Do not tick boxes of other stories.`,
    );
  }

  if (p.source.kind === "openspec") {
    const c = p.source.change;
    const list = (label: string, files: string[]) => (files.length ? [`- ${label}: ${files.map(rel).join(", ")}`] : []);
    const ctx = [...list("Proposal", c.proposal), ...list("Design", c.design), ...list("Specs", c.specs)];
    parts.push(
      `## OpenSpec change: ${c.name}\n\nRead these before you start:\n${ctx.join("\n") || "- (no proposal, design or specs yet)"}` +
        (c.scenarios.length ? `\n\nThe change must satisfy these scenarios:\n\n${c.scenarios.map((s) => `### ${s}`).join("\n\n")}` : ""),
    );
  }

  parts.push(
    `## Learnings\n\nNotes shared between stories are in ${p.learningsFile}. Read it first if it exists. ` +
      `Before you finish, add anything the next story should know (commands that work, pitfalls, decisions); create the file if it does not exist.`,
  );

  if (p.retryReason) {
    parts.push(
      `## Previous attempt failed (attempt ${p.attempt} of ${p.maxRetries})\n\n` +
        `The last attempt at this story was reverted. Its failure reason:\n\n` +
        `${capped(p.retryReason, TEXT_BYTES, "the failure reason", whole("the `reason` of its last iteration"))}\n\nAvoid repeating it.`,
    );
  }

  if (p.notes?.length) parts.push(userNotes(p.notes, whole("its `notes`")));

  parts.push(
    `## Rules\n\n` +
      `- Stay on the current git branch. Do not switch branches, rebase, reset, or rewrite history; the harness manages checkpoints.\n` +
      `- Verify your work (build, tests) before you claim it is done.\n` +
      (p.verify
        ? `- After you report COMPLETE the harness runs this command in the worktree: \`${p.verify}\`. ` +
          `If it exits non-zero (or runs longer than its limit), your attempt is rejected and reverted. ` +
          `Run it yourself and make it pass before you claim COMPLETE.\n`
        : "") +
      (p.review
        ? `- After you report COMPLETE (and its checks pass), a reviewer (another agent) reads the story and your diff; ` +
          `if it asks for changes, your attempt is rejected and reverted, and its reason is given to the next attempt.\n`
        : "") +
      `- End your final message with exactly one promise:\n` +
      `  - \`<promise>COMPLETE</promise>\` only when ${
        p.source.kind === "manual" ? "the task is done and verified" : "every task of this story is done, verified and ticked"
      };\n` +
      `  - \`<promise>FAILED: reason</promise>\` when you cannot proceed, with the reason (it is shown to the next attempt).\n` +
      `  The promise must be the very last thing in your final message, as plain text outside any code block: ` +
      `nothing after it counts as a promise, and neither does a promise in a code block or in the middle of a message.`,
  );
  return parts.join("\n\n") + "\n";
}

/**
 * The user's notes in a fence longer than any backtick run they hold, control characters removed:
 * a note cannot close its section or start a new one, whatever it says.
 */
function userNotes(notes: string[], whole: string): string {
  const all = notes.map((n) => n.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "")).join("\n\n---\n\n");
  const text = capped(all, TEXT_BYTES, "the notes", whole, false);
  const fence = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  const cut = text.length < all.length ? `\n\n${cutNote(all, TEXT_BYTES, "the notes", whole)}` : "";
  return (
    `## Note from the user\n\nWhile the loop ran, the user left ${notes.length === 1 ? "this note" : "these notes"} for you. ` +
    `Take ${notes.length === 1 ? "it" : "them"} into account for this story; the text between the fences is the user's, word for word:\n\n` +
    `${fence}text\n${text}\n${fence}${cut}`
  );
}

/**
 * What a prompt carries of each text of the user's: the task (64 KB) and a failure reason or the notes (16 KB
 * each). A prompt goes to some agents as one argument (at most 128 KB on Linux) and always into a context window:
 * a text past its cap is cut, and the prompt says so and where the whole is.
 */
const TASK_BYTES = 64 * 1024;
const TEXT_BYTES = 16 * 1024;

function capped(text: string, limit: number, what: string, whole: string, noted = true): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let head = text.slice(0, limit);
  while (Buffer.byteLength(head) > limit) head = head.slice(0, Math.floor(head.length * 0.9));
  return noted ? `${head}\n\n${cutNote(text, limit, what, whole, head)}` : head;
}

function cutNote(text: string, limit: number, what: string, whole: string, head = capped(text, limit, what, whole, false)): string {
  const mb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);
  const size = Buffer.byteLength(text);
  return (
    `[wt-loop: ${what} ${what.endsWith("s") ? "are" : "is"} ${mb(size)}; ` +
    `the first ${limit / 1024} KB are above, the rest (${mb(size - Buffer.byteLength(head))}) was cut: ${whole}.]`
  );
}
