/**
 * `wt-loop start --pr 45` (docs/github.md): what the pull request's reviewers and checks said comes back as
 * stories. The failing check runs of its head commit (name, and the tail of their output) and the reviews whose
 * latest word is "changes requested" (their comments with file and line) become new stories appended to the
 * loop's tasks file; the loop then runs them on the same branch and `--on-complete pr` pushes again. Checks still
 * running are waited for (bounded by --max-wait), shown as waiting, not as failed.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { UserError } from "../errors.ts";
import { parseStories } from "../stories/story.ts";
import { sleepUntil } from "../proc/timer.ts";
import { ghApi, repoLabel, type GhContext, type RepoId } from "./gh.ts";
import { GitHubWaitStopped } from "./rate-wait.ts";

interface PullJson {
  number: number;
  state: string;
  merged_at?: string | null;
  html_url: string;
  head: { ref: string; sha: string };
}

interface CheckRunJson {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  output?: { title?: string | null; summary?: string | null; text?: string | null };
}

interface ReviewJson {
  id: number;
  user: { login: string } | null;
  state: string;
  body: string | null;
}

interface ReviewCommentJson {
  path: string;
  line: number | null;
  original_line?: number | null;
  body: string;
}

export interface Feedback {
  pull: PullJson;
  failing: { name: string; output: string }[];
  changes: { user: string; body: string; comments: { path: string; line: number | null; body: string }[] }[];
}

const FAILED = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure"]);
/** How often checks still running are asked about again. */
const CHECK_POLL_MS = 30_000;
const TAIL_LINES = 30;

export interface FeedbackWait {
  /** Checks still running (their names), or the head or its first check awaited (none): said as waiting, and until when it asks again. */
  onWait?(names: string[], until: number): void | Promise<void>;
  maxWaitMs: number;
  /** Multiplies the poll interval (tests set it small). */
  scale?: number;
  /** `--watch`: the commit just pushed — waited for as the pull request's head, and for its first check (CI may not have begun). */
  head?: string;
  /** Ends the wait (a stop): the read fails with `GitHubWaitStopped`. */
  signal?: AbortSignal;
}

/** The pull request was closed or merged (for `start --pr`, a refusal; for `--watch`, the end of the watch). */
export class PullGone extends UserError {
  override name = "PullGone";
  constructor(
    message: string,
    readonly merged: boolean,
    readonly url: string,
  ) {
    super(message);
  }
}

/**
 * How long `--watch` waits, after a push, for GitHub to show the pushed commit as the pull request's head and for
 * its first check run to appear (CI takes a moment to begin); a head with no check after it has no CI, and passes.
 */
const FIRST_CHECK_MS = 5 * 60_000;

/** What pull request `n` of `repo` asks for, its head being `branch` (the worktree's); refused when closed, merged or another branch's. */
export async function readFeedback(ctx: GhContext, repo: RepoId, n: number, branch: string | null, wait: FeedbackWait): Promise<Feedback> {
  const api = `repos/${repo.owner}/${repo.name}`;
  const began = Date.now();
  const step = CHECK_POLL_MS * (wait.scale ?? 1);
  let pull: PullJson;
  let runs: CheckRunJson[];
  // Each time round, the pull request is read again: closed or merged meanwhile ends the wait.
  for (;;) {
    pull = await ghApi<PullJson>(ctx, repo, `${api}/pulls/${n}`, {
      what: `reads pull request #${n}`,
      notFound: `Pull request #${n} was not found in ${repoLabel(repo)}. Check the number (\`gh pr list --repo ${repoLabel(repo)}\`).`,
    });
    if (pull.state !== "open")
      throw new PullGone(
        `Pull request #${n} (${pull.html_url}) is ${pull.merged_at ? "merged" : "closed"}: ` +
          `there is nothing to fix on it. ${pull.merged_at ? "Start a new loop for more work." : `Reopen it (\`gh pr reopen ${n}\`) first.`}`,
        Boolean(pull.merged_at),
        pull.html_url,
      );
    if (pull.head.ref !== branch)
      throw new UserError(
        `Pull request #${n} is from the branch ${pull.head.ref}, and this worktree is on ${branch ?? "no branch"}: the stories must run on its branch. ` +
          `Switch to it (\`git switch ${pull.head.ref}\`, or \`gh pr checkout ${n}\`), then try again.`,
      );
    const early = wait.head !== undefined && Date.now() - began < FIRST_CHECK_MS * (wait.scale ?? 1);
    if (pull.head.sha !== wait.head && early) {
      await rest(wait, [], step);
      continue;
    }
    runs = (
      await ghApi<{ check_runs: CheckRunJson[] }>(ctx, repo, `${api}/commits/${pull.head.sha}/check-runs`, {
        query: { per_page: "100" },
        what: `reads the checks of pull request #${n}`,
      })
    ).check_runs;
    const running = runs.filter((r) => r.status !== "completed").map((r) => r.name);
    if (!running.length && !(runs.length === 0 && early)) break;
    if (Date.now() - began + step > wait.maxWaitMs)
      throw new UserError(
        `The checks ${running.join(", ")} of pull request #${n} are still running: ` +
          `run \`wt-loop start --pr ${n}\` again once they have finished (or raise --max-wait).`,
      );
    await rest(wait, running, step);
  }
  const failing = runs.filter((r) => r.conclusion && FAILED.has(r.conclusion)).map((r) => ({ name: r.name, output: tail(r.output) }));
  const reviews = await ghApi<ReviewJson[]>(ctx, repo, `${api}/pulls/${n}/reviews`, {
    query: { per_page: "100" },
    what: `reads the reviews of pull request #${n}`,
  });
  // A reviewer's latest verdict counts: changes requested, then approved, is approved.
  const latest = new Map<string, ReviewJson>();
  for (const r of reviews) if (r.user && r.state !== "COMMENTED") latest.set(r.user.login, r);
  const changes: Feedback["changes"] = [];
  for (const r of latest.values()) {
    if (r.state !== "CHANGES_REQUESTED") continue;
    const comments = await ghApi<ReviewCommentJson[]>(ctx, repo, `${api}/pulls/${n}/reviews/${r.id}/comments`, {
      query: { per_page: "100" },
      what: `reads the review comments of pull request #${n}`,
    });
    changes.push({
      user: r.user!.login,
      body: (r.body ?? "").trim(),
      comments: comments.map((c) => ({ path: c.path, line: c.line ?? c.original_line ?? null, body: c.body.trim() })),
    });
  }
  return { pull, failing, changes };
}

/** Says the wait, then sleeps one poll; a stop ends it. */
async function rest(wait: FeedbackWait, names: string[], step: number): Promise<void> {
  const until = Date.now() + step;
  await wait.onWait?.(names, until);
  if (!(await sleepUntil(until, wait.signal ?? new AbortController().signal)))
    throw new GitHubWaitStopped(`Stopped while waiting for ${names.length ? `the checks ${names.join(", ")}` : "the pull request's checks"}.`);
}

function tail(o: CheckRunJson["output"]): string {
  const text = [o?.title, o?.summary, o?.text].filter((t): t is string => Boolean(t?.trim())).join("\n");
  return text.split("\n").slice(-TAIL_LINES).join("\n").trim();
}

const oneLine = (t: string) => t.replace(/\s+/g, " ").trim();

/** The stories to append to `tasks` (the file's text): numbered after its highest story. Empty when nothing was asked. */
export function feedbackStories(tasks: string, f: Feedback): { text: string; titles: string[] } {
  let next =
    Math.max(
      0,
      ...parseStories(tasks)
        .map((s) => Number(s.id))
        .filter(Number.isFinite),
    ) + 1;
  const n = f.pull.number;
  const parts: string[] = [];
  const titles: string[] = [];
  for (const c of f.failing) {
    const title = `Make the check \`${c.name}\` pass (pull request #${n})`;
    titles.push(`${next}. ${title}`);
    // Quoted line by line: a tasks file has no code blocks, and a `- [ ]` or `## ` in the output must not become a task or a story.
    const out = c.output
      ? `\n\nThe end of its output:\n\n${c.output
          .split("\n")
          .map((l) => `> ${l}`.trimEnd())
          .join("\n")}`
      : "";
    parts.push(`## ${next++}. ${title}\n\n- [ ] Find why \`${c.name}\` fails on the pull request's head and fix it${out}\n`);
  }
  for (const r of f.changes) {
    const title = `Address the changes @${r.user} requested (pull request #${n})`;
    titles.push(`${next}. ${title}`);
    const boxes = [
      ...(r.body ? [`- [ ] ${oneLine(r.body)}`] : []),
      ...r.comments.map((c) => `- [ ] \`${c.path}${c.line ? `:${c.line}` : ""}\`: ${oneLine(c.body)}`),
    ];
    if (!boxes.length) boxes.push(`- [ ] Do what @${r.user} asked in the review`);
    parts.push(`## ${next++}. ${title}\n\n${boxes.join("\n")}\n`);
  }
  return { text: parts.join("\n"), titles };
}

/** Appends the stories to the tasks file; returns what to tell the user. */
export function appendedNote(tasksFile: string, f: Feedback, titles: string[]): string {
  const what = [
    f.failing.length ? `${f.failing.length} failing check${f.failing.length > 1 ? "s" : ""}` : null,
    f.changes.length ? `${f.changes.length} review${f.changes.length > 1 ? "s" : ""} asking for changes` : null,
  ]
    .filter(Boolean)
    .join(" and ");
  return `Pull request #${f.pull.number}: ${what}, added to ${tasksFile} as ${titles.join("; ")}.`;
}

/**
 * The feedback as stories appended to the tasks file (`start --pr N` and `--watch` both): returns what to tell the
 * user, or null when nothing was asked. `write` false (--dry-run): says what it would add, writes nothing.
 */
export function appendFeedback(tasksFile: string, shown: string, f: Feedback, write = true): string | null {
  const text = readFileSync(tasksFile, "utf8");
  const { text: stories, titles } = feedbackStories(text, f);
  if (!titles.length) return null;
  if (!write) return `Would add to ${shown}: ${titles.join("; ")}.`;
  appendFileSync(tasksFile, `${text.endsWith("\n") ? "" : "\n"}\n${stories}`);
  return appendedNote(shown, f, titles);
}
