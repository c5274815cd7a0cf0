/**
 * Reading issues (docs/github.md): a reference as a user writes it (`123`, `owner/repo#123`, the issue's URL),
 * the repository it belongs to, and the issue or the issues a search finds — all through `gh api`.
 */
import { UserError } from "../errors.ts";
import { ghApi, repoLabel, requireGhLogin, type GhContext, type RepoId } from "./gh.ts";

export interface IssueRef {
  /** Null: the repository of this worktree, as `gh` finds it (GH_REPO, then the git remotes). */
  repo: { host: string | null; owner: string; name: string } | null;
  number: number;
}

export interface Issue {
  number: number;
  title: string;
  body: string;
  url: string;
  state: string;
}

const NAME = "[A-Za-z0-9_.-]+";
const SHORT = new RegExp(`^(?:(${NAME}(?::\\d+)?)/)?(${NAME})/(${NAME})#(\\d+)$`);
const URL_FORM = new RegExp(`^https?://([^/\\s]+)/(${NAME})/(${NAME})/(?:issues|pull)/(\\d+)(?:[/?#].*)?$`);

/** `123`, `#123`, `owner/repo#123`, `host/owner/repo#123` or `https://host/owner/repo/issues/123`. */
export function parseIssueRef(text: string, flag = "--issue"): IssueRef {
  const t = text.trim();
  const plain = /^#?(\d+)$/.exec(t);
  if (plain) return { repo: null, number: positive(plain[1]!, t, flag) };
  const short = SHORT.exec(t);
  if (short) return { repo: { host: short[1] ?? null, owner: short[2]!, name: short[3]! }, number: positive(short[4]!, t, flag) };
  const url = URL_FORM.exec(t);
  if (url) return { repo: { host: url[1]!, owner: url[2]!, name: url[3]! }, number: positive(url[4]!, t, flag) };
  throw new UserError(`${flag} ${t}: give an issue number (123), owner/repo#123, or the issue's URL (https://github.com/owner/repo/issues/123).`);
}

function positive(digits: string, text: string, flag: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n < 1) throw new UserError(`${flag} ${text}: an issue number is a whole number from 1.`);
  return n;
}

interface RepoJson {
  full_name: string;
  html_url: string;
  default_branch?: string;
  permissions?: { push?: boolean };
}

/** The repository `ref` names (or this worktree's, found by gh), checked to exist; then gh's login on its host. */
export async function resolveRepo(ctx: GhContext, ref: IssueRef["repo"]): Promise<RepoId> {
  const host = ref?.host ?? ctx.env?.GH_HOST ?? process.env.GH_HOST ?? "github.com";
  const given: RepoId | null = ref ? { host, owner: ref.owner, name: ref.name } : null;
  const label = given ? repoLabel(given) : "this worktree's repository";
  const json = await ghApi<RepoJson>(ctx, given, given ? `repos/${ref!.owner}/${ref!.name}` : "repos/{owner}/{repo}", {
    what: `looks up ${label}`,
    notFound:
      `The repository ${label} was not found on ${host} (or the login \`gh\` uses cannot see it). ` +
      `Check the name, or run \`gh auth login --hostname ${host}\` with an account that can.`,
  });
  const repo = repoFromUrl(json.html_url) ?? given;
  if (!repo) throw new UserError(`GitHub answered for ${label} without its address (${json.full_name}); give the repository as owner/repo#N.`);
  await requireGhLogin(ctx, repo.host);
  return repo;
}

export function repoFromUrl(url: string): RepoId | null {
  const m = new RegExp(`^https?://([^/]+)/(${NAME})/(${NAME})/?$`).exec(url);
  return m ? { host: m[1]!, owner: m[2]!, name: m[3]! } : null;
}

interface IssueJson {
  number: number;
  title: string;
  body: string | null;
  html_url: string;
  state: string;
  pull_request?: unknown;
}

const asIssue = (j: IssueJson): Issue => ({ number: j.number, title: j.title, body: j.body ?? "", url: j.html_url, state: j.state });

export async function fetchIssue(ctx: GhContext, repo: RepoId, n: number): Promise<Issue> {
  const j = await ghApi<IssueJson>(ctx, repo, `repos/${repo.owner}/${repo.name}/issues/${n}`, {
    what: `reads issue #${n} of ${repoLabel(repo)}`,
    notFound: `Issue #${n} was not found in ${repoLabel(repo)}. Check the number (\`gh issue list --repo ${repoLabel(repo)}\`).`,
  });
  if (j.pull_request) throw new UserError(`#${n} of ${repoLabel(repo)} is a pull request, not an issue. Give an issue (its stories come from its task list).`);
  return asIssue(j);
}

/** The open issues a search finds in `repo` (GitHub's search syntax: `label:wt-loop`, `milestone:v2`…), oldest first. */
export async function searchIssues(ctx: GhContext, repo: RepoId, search: string): Promise<Issue[]> {
  const q = `repo:${repo.owner}/${repo.name} is:issue is:open ${search}`;
  const j = await ghApi<{ items: IssueJson[]; total_count: number }>(ctx, repo, "search/issues", {
    query: { q, per_page: "100" },
    what: `searches the issues of ${repoLabel(repo)} for '${search}'`,
  });
  const found = j.items.filter((i) => !i.pull_request).map(asIssue);
  if (found.length === 0)
    throw new UserError(
      `No open issue of ${repoLabel(repo)} matches '${search}'. Check the search (\`gh issue list --repo ${repoLabel(repo)} --search '${search}'\`).`,
    );
  if (j.total_count > j.items.length)
    throw new UserError(`'${search}' matches ${j.total_count} issues of ${repoLabel(repo)}; one loop takes at most ${j.items.length}. Narrow the search.`);
  return found.sort((a, b) => a.number - b.number);
}
