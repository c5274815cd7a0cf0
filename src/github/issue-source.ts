/**
 * Stories from GitHub issues (docs/github.md): `--issue 123` (one issue: its task list or sections) or
 * `--issues SEARCH` (one story per issue found). The issue becomes a tasks file in the worktree,
 * `.wt-loop/issue-123/tasks.md`, and from then on it is read like any tasks file. It lives in the worktree,
 * not in `.claude/` (which git is told to ignore), because the boxes must be inside every checkpoint: a
 * revert puts a failed attempt's ticks back, a lane's worktree (`--parallel`) has the file, and the
 * finished branch carries the plan with its ticks. Nothing is written here: the caller writes `markdown`
 * once every check has passed; an existing file (an earlier run's ticks) is kept as it is.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { repoLabel, repoName, type GhContext } from "./gh.ts";
import { fetchIssue, parseIssueRef, resolveRepo, searchIssues, type Issue } from "./issues.ts";
import type { GitHubLink } from "../state/schema.ts";
import { issueTasks, searchTasks } from "../stories/issue-tasks.ts";

export interface IssueWork {
  tasksFile: string;
  /** The tasks file's text to write; null when the file is already there (an earlier run's, with its ticks). */
  markdown: string | null;
  task: string;
  github: GitHubLink;
}

export const ISSUE_FOLDER = ".wt-loop";

export async function issueWork(
  worktree: string,
  given: { issue?: string; issues?: string },
  ctx: GhContext,
  warn: (message: string) => void,
): Promise<IssueWork> {
  if (given.issue && given.issues) throw new UserError("--issue and --issues both name the work: give one of them.");
  if (given.issue) {
    const ref = parseIssueRef(given.issue);
    const repo = await resolveRepo(ctx, ref.repo);
    const issue = await fetchIssue(ctx, repo, ref.number);
    if (issue.state !== "open")
      throw new UserError(
        `Issue #${issue.number} of ${repoLabel(repo)} is ${issue.state}. ` +
          `Reopen it first (\`gh issue reopen ${issue.number} --repo ${repoLabel(repo)}\`), or give another.`,
      );
    const tasksFile = join(worktree, ISSUE_FOLDER, `issue-${issue.number}`, "tasks.md");
    const github: GitHubLink = { host: repo.host, repo: repoName(repo), issues: [brief(issue)], search: null };
    const task = `GitHub issue #${issue.number} of ${repoLabel(repo)} (${issue.url}): ${issue.title}\n\n${quoted(issue.body)}`;
    if (existsSync(tasksFile)) {
      warn(`Using ${ISSUE_FOLDER}/issue-${issue.number}/tasks.md from an earlier run, with its ticks; delete it to read the issue's task list again.`);
      return { tasksFile, markdown: null, task, github };
    }
    const made = issueTasks(issue);
    if (made.shape === "whole") warn(`Issue #${issue.number} has no task list (\`- [ ]\` items): the whole issue is one story.`);
    return { tasksFile, markdown: made.markdown, task, github };
  }
  const search = given.issues!.trim();
  const repo = await resolveRepo(ctx, null);
  const found = await searchIssues(ctx, repo, search);
  const tasksFile = join(worktree, ISSUE_FOLDER, `issues-${slug(search)}`, "tasks.md");
  const github: GitHubLink = { host: repo.host, repo: repoName(repo), issues: found.map(brief), search };
  const task =
    `The open GitHub issues of ${repoLabel(repo)} that '${search}' finds, one story each:\n\n` +
    found.map((i) => `### #${i.number}: ${i.title} (${i.url})\n\n${quoted(i.body)}`).join("\n\n");
  if (existsSync(tasksFile)) {
    warn(`Using ${ISSUE_FOLDER}/issues-${slug(search)}/tasks.md from an earlier run, with its ticks; delete it to search again.`);
    return { tasksFile, markdown: null, task, github };
  }
  const made = searchTasks(found, `Issues of ${repoLabel(repo)}: ${search}`);
  for (const o of made.outside)
    warn(`Issue #${o.issue} says it comes after #${o.waitsFor}, which the search did not find (closed, or without the label): not waited for.`);
  return { tasksFile, markdown: made.markdown, task, github };
}

/**
 * The issue's words as a quotation: the agent reads what its author asked, and the boxes in it are not mistaken
 * for the story's own (those are in the tasks file, which is the one the agent ticks).
 */
function quoted(body: string): string {
  const text = body.replace(/\r\n?/g, "\n").trim();
  return text
    ? text
        .split("\n")
        .map((l) => (l ? `> ${l}` : ">"))
        .join("\n")
    : "(The issue has no description.)";
}

const brief = (i: Issue) => ({ number: i.number, title: i.title, url: i.url });

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "search"
  );
}
