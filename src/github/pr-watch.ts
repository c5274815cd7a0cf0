/**
 * `--watch` on GitHub's side (docs/github.md): after a push, the loop's pull request is read as `start --pr N`
 * reads it (github/pr-feedback.ts) — the pushed commit awaited as its head, its checks awaited, its failing checks
 * and requested changes appended to the tasks file as stories. GitHub's rate limit is waited out; a stop ends
 * every wait. The engine decides what the verdict means for the loop (engine/watch-round.ts).
 */
import { relative } from "node:path";
import type { State } from "../state/schema.ts";
import type { GhContext, RepoId } from "./gh.ts";
import { appendFeedback, feedbackStories, PullGone, readFeedback } from "./pr-feedback.ts";
import { outwaitingRateLimit } from "./rate-wait.ts";
import { readFileSync } from "node:fs";

/** What the watch found: stories added (`note` says which), feedback not taken (`take` false), nothing asked, or the pull request closed or merged. */
export type WatchVerdict =
  | { kind: "stories"; note: string }
  | { kind: "feedback"; note: string }
  | { kind: "clean" }
  | { kind: "gone"; merged: boolean; url: string };

export interface WatchOptions {
  ctx: GhContext;
  signal: AbortSignal;
  /** Appends the feedback as stories (false: only says what it would be). */
  take: boolean;
  onWait(checks: string[]): void | Promise<void>;
}

/** The pull request's repository, from the state's record (`host/owner/name`, or `owner/name` on github.com). */
function repoOf(label: string): RepoId {
  const parts = label.split("/");
  return parts.length >= 3
    ? { host: parts.slice(0, -2).join("/"), owner: parts.at(-2)!, name: parts.at(-1)! }
    : { host: "github.com", owner: parts[0]!, name: parts[1]! };
}

export async function watchPullRequest(s: State, o: WatchOptions): Promise<WatchVerdict> {
  const pr = s.pull_request;
  if (!pr || !s.tasks_file) return { kind: "clean" };
  const env = o.ctx.env ?? process.env;
  const scale = Number(env.WT_LOOP_WAIT_SCALE) > 0 ? Number(env.WT_LOOP_WAIT_SCALE) : 1;
  const repo = repoOf(pr.repo);
  let feedback: Awaited<ReturnType<typeof readFeedback>>;
  try {
    feedback = await outwaitingRateLimit(o.ctx, s.max_wait_hours, `run \`wt-loop start --pr ${pr.number}\``, { signal: o.signal }, () =>
      readFeedback(o.ctx, repo, pr.number, s.checkpoint_branch, {
        maxWaitMs: s.max_wait_hours * 3_600_000,
        scale,
        head: pr.pushed,
        signal: o.signal,
        onWait: (names) => o.onWait(names),
      }),
    );
  } catch (err) {
    if (err instanceof PullGone) return { kind: "gone", merged: err.merged, url: err.url };
    throw err;
  }
  const shown = relative(s.worktree_path, s.tasks_file);
  if (!o.take) {
    const { titles } = feedbackStories(readFileSync(s.tasks_file, "utf8"), feedback);
    return titles.length ? { kind: "feedback", note: titles.join("; ") } : { kind: "clean" };
  }
  const note = appendFeedback(s.tasks_file, shown, feedback);
  return note ? { kind: "stories", note } : { kind: "clean" };
}
