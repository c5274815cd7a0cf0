/**
 * `--on-complete pr` and `wt-loop pr` (docs/github.md): the loop's branch pushed with real `git push`, and one pull
 * request opened — or updated, never a second — whose body wt-loop writes from its records (github/pr-text.ts).
 *
 * The push never goes over commits the loop did not make: it is a fast-forward, or (the loop's branch was
 * rewritten) `--force-with-lease` over exactly the commit wt-loop itself pushed last (`pull_request.pushed` in
 * the state). Only the loop's own branch (`ralph/…`, branch checkpoints) is ever pushed, never yours. A run
 * killed anywhere in here loses nothing: the local branch is only read, and the next run finds the branch
 * already pushed and the pull request by its head, so it updates that one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import type { Git } from "../checkpoint/git.ts";
import type { Iteration, State } from "../state/schema.ts";
import { loopPaths } from "../state/paths.ts";
import { archivedRuns, findRun } from "../state/run-files.ts";
import { parseStories } from "../stories/story.ts";
import { ghApi, repoLabel, requireGhLogin, type GhContext, type RepoId } from "./gh.ts";
import { outwaitingRateLimit, GitHubWaitStopped, type RateWait } from "./rate-wait.ts";
import { resolveRepo } from "./issues.ts";
import { prBody, prSection, prTitle, type PlanStory } from "./pr-text.ts";

export type PullRequestRecord = NonNullable<State["pull_request"]>;

interface RepoJson {
  default_branch?: string;
  permissions?: { push?: boolean };
}

interface PullJson {
  number: number;
  html_url: string;
  node_id?: string;
  state: string;
  merged_at?: string | null;
  draft?: boolean;
  body: string | null;
}

export interface Target {
  repo: RepoId;
  remote: string;
  defaultBranch: string;
}

/** Protocols a push may use: wt-loop's git allows none by default (proc/git-hardening.ts), a push is the one transport it makes. */
const PUSH_PROTOCOLS = ["file", "https", "http", "ssh", "git"].flatMap((p) => ["-c", `protocol.${p}.allow=always`]);

/**
 * What a pull request needs, checked before anything is written (at `start` with `--on-complete pr`, and first
 * thing in `wt-loop pr`): branch checkpoints, a git remote, `gh` logged in to the repository's host, and a login
 * that may push there. `github`: the issue's repository when the stories came from one.
 */
export async function prTarget(git: Git, ctx: GhContext, s: Pick<State, "checkpoint" | "github" | "original_branch">): Promise<Target> {
  if (s.checkpoint !== "branch")
    throw new UserError("A pull request needs the loop's own branch: --on-complete pr works with --checkpoint branch (the default), not stash.");
  const remote = await pushRemote(git, s.original_branch);
  let repo: RepoId;
  if (s.github) {
    const [owner, name] = s.github.repo.split("/") as [string, string];
    repo = { host: s.github.host, owner, name };
    await requireGhLogin(ctx, repo.host);
  } else repo = await resolveRepo(ctx, null);
  const path = `repos/${repo.owner}/${repo.name}`;
  const j = await ghApi<RepoJson>(ctx, repo, path, {
    what: `looks up ${repoLabel(repo)}`,
    notFound: `The repository ${repoLabel(repo)} was not found (or your login cannot see it).`,
  });
  if (j.permissions && j.permissions.push === false)
    throw new UserError(
      `Your GitHub login cannot push to ${repoLabel(repo)} (a fork you do not own, or read-only access), ` +
        `so wt-loop cannot open a pull request from the loop's branch there. ` +
        "Ask for write access, or work in your own fork (its remote as `origin`, GH_REPO=you/fork), then try again.",
    );
  return { repo, remote, defaultBranch: j.default_branch ?? "main" };
}

/**
 * `start --on-complete pr`, before anything is written: what `prTarget` checks, and a pull request the loop
 * already has (a restart) must still be open — a closed or merged one is refused now, not after the work.
 */
export async function prPreflight(git: Git, ctx: GhContext, s: Pick<State, "checkpoint" | "github" | "original_branch" | "pull_request">): Promise<void> {
  const target = await prTarget(git, ctx, s);
  if (s.pull_request) await findPull(ctx, target.repo, "", s.pull_request);
}

/**
 * Whether the end question offers `pr`: the loop has its own branch, the repository a remote to push it to, and
 * `gh` is installed. Cheap and offline (the login and the right to push are checked when it is chosen: a failure
 * then is said, and the branch is kept).
 */
export async function prOffered(git: Git, s: Pick<State, "checkpoint" | "checkpoint_branch">, env: Record<string, string | undefined>): Promise<boolean> {
  if (s.checkpoint !== "branch" || !s.checkpoint_branch || !Bun.which("gh", { PATH: env.PATH ?? "" })) return false;
  return Boolean((await git.run(["remote"], { allowFailure: true }).catch(() => ({ stdout: "" }))).stdout.trim());
}

/** The remote of your branch's upstream, else `origin`, else the only remote. */
async function pushRemote(git: Git, branch: string | null): Promise<string> {
  const remotes = (await git.run(["remote"], { allowFailure: true })).stdout
    .split("\n")
    .map((r) => r.trim())
    .filter(Boolean);
  const upstream = branch ? (await git.run(["config", `branch.${branch}.remote`], { allowFailure: true })).stdout.trim() : "";
  const remote = remotes.includes(upstream) ? upstream : remotes.includes("origin") ? "origin" : remotes.length === 1 ? remotes[0] : undefined;
  if (remote) return remote;
  if (!remotes.length)
    throw new UserError("This repository has no git remote to push the loop's branch to. Add one (`git remote add origin <url>`), then try again.");
  throw new UserError(
    `This repository has several git remotes (${remotes.join(", ")}) and none is \`origin\`: ` +
      `set your branch's upstream (\`git branch -u <remote>/<branch>\`), then try again.`,
  );
}

export interface Published {
  record: PullRequestRecord;
  message: string;
}

/**
 * Pushes the loop's branch and opens or updates its pull request. `record` is called as soon as the pull
 * request's number is known, before anything else is written, so a kill after it leaves the state naming it.
 * GitHub's rate limit is waited out (github/rate-wait.ts); a stop during that wait says what was done and what not.
 */
export async function publishPr(git: Git, ctx: GhContext, s: State, record: (r: PullRequestRecord) => Promise<void>, wait: RateWait = {}): Promise<Published> {
  const done = new Set<string>();
  try {
    return await outwaitingRateLimit(ctx, s.max_wait_hours, "run `wt-loop pr`", wait, () => publishOnce(git, ctx, s, record, done));
  } catch (err) {
    if (!(err instanceof GitHubWaitStopped)) throw err;
    const what =
      done.size > 1
        ? "it was not marked ready for review"
        : s.pull_request
          ? `pull request #${s.pull_request.number} was not updated`
          : "no pull request was opened";
    throw new GitHubWaitStopped(`${err.message} ${done.size ? `Done: ${[...done].join("; ")}; ` : "Nothing was pushed; "}${what} (\`wt-loop pr\` does it).`);
  }
}

async function publishOnce(git: Git, ctx: GhContext, s: State, record: (r: PullRequestRecord) => Promise<void>, done: Set<string>): Promise<Published> {
  const branch = s.checkpoint_branch;
  if (!branch) throw new UserError("This loop made no branch of its own (no checkpoint was taken): there is nothing to open a pull request from.");
  const target = await prTarget(git, ctx, s);
  const { repo, remote } = target;
  const tip = await git.resolve(`refs/heads/${branch}`);
  if (!tip) throw new UserError(`The loop's branch ${branch} is gone (cleaned up, or deleted): there is nothing to push.`);
  const api = `repos/${repo.owner}/${repo.name}/pulls`;
  // Before the push: a closed or merged pull request of this loop is refused with nothing written.
  const existing = await findPull(ctx, repo, branch, s.pull_request);
  const pushedWhat = await push(git, remote, branch, tip, s.pull_request?.pushed ?? null);
  done.add(`${branch} is on ${remote} at ${tip.slice(0, 12)}`);
  const base = (await remoteHead(git, remote, s.original_branch)) ? s.original_branch! : target.defaultBranch;
  const earlier = await earlierIterations(s);
  const section = prSection({ state: s, earlier, plan: await planOf(s), files: await filesOf(git, [...earlier, ...s.iterations]) });
  const ready = s.status === "done";
  let pull: PullJson;
  let said: string;
  if (existing) {
    pull = await ghApi<PullJson>(ctx, repo, `${api}/${existing.number}`, {
      method: "PATCH",
      body: { body: prBody(existing.body ?? "", null, section) },
      what: `updates pull request #${existing.number}`,
    });
    said = `updated pull request #${pull.number}`;
  } else {
    pull = await ghApi<PullJson>(ctx, repo, api, {
      method: "POST",
      body: { title: prTitle(s), head: branch, base, body: prBody(null, template(s.worktree_path), section), draft: !ready },
      what: `opens a pull request from ${branch}`,
    });
    said = `opened pull request #${pull.number}${ready ? "" : " as a draft (stories remain)"}`;
  }
  await record({ number: pull.number, url: pull.html_url, repo: repoLabel(repo), remote, pushed: tip });
  done.add(said);
  if (ready && pull.draft && pull.node_id) {
    await ghApi(ctx, repo, "graphql", {
      method: "POST",
      body: {
        query: "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
        variables: { id: pull.node_id },
      },
      what: `marks pull request #${pull.number} ready for review`,
    });
    said += ", ready for review now that every story is done";
  }
  return {
    record: { number: pull.number, url: pull.html_url, repo: repoLabel(repo), remote, pushed: tip },
    message: `${pushedWhat}; ${said}: ${pull.html_url}`,
  };
}

async function remoteHead(git: Git, remote: string, branch: string | null): Promise<string | null> {
  if (!branch) return null;
  const r = await git.run([...PUSH_PROTOCOLS, "ls-remote", "--heads", remote, `refs/heads/${branch}`]).catch((err: Error) => {
    throw new UserError(`Could not reach the git remote ${remote} (${err.message.split("\n")[0]}). Check the remote and your access to it, then try again.`);
  });
  return r.stdout.split(/\s+/)[0] || null;
}

/** A fast-forward, or over the commit wt-loop pushed last (`pushed`) and nothing else; never over another's commits. */
async function push(git: Git, remote: string, branch: string, tip: string, pushed: string | null): Promise<string> {
  const there = await remoteHead(git, remote, branch);
  const ref = `refs/heads/${branch}`;
  if (there === tip) return `${branch} was already pushed to ${remote}`;
  let args: string[];
  if (!there || (await git.run(["merge-base", "--is-ancestor", there, tip], { allowFailure: true })).code === 0) args = ["push", remote, `${tip}:${ref}`];
  else if (there === pushed) args = ["push", `--force-with-lease=${ref}:${there}`, remote, `${tip}:${ref}`];
  else
    throw new UserError(
      `${branch} on ${remote} has commits the loop did not push (it is at ${there.slice(0, 12)}); wt-loop never pushes over someone else's commits. ` +
        `Bring them into the loop's branch (\`git fetch ${remote} ${branch} && git merge FETCH_HEAD\` on ${branch}), then run \`wt-loop pr\` again.`,
    );
  const r = await git.run([...PUSH_PROTOCOLS, ...args], { allowFailure: true });
  if (r.code !== 0)
    throw new UserError(
      `\`git push\` of ${branch} to ${remote} failed: ${r.stderr.trim().split("\n").slice(-3).join(" ")}. ` +
        `Nothing was overwritten; fix that, then run \`wt-loop pr\`.`,
    );
  return `pushed ${branch} to ${remote}`;
}

/** The pull request this loop made (the state names it), else an open one from this branch (one a killed run made). */
async function findPull(ctx: GhContext, repo: RepoId, branch: string, known: State["pull_request"]): Promise<PullJson | null> {
  const api = `repos/${repo.owner}/${repo.name}/pulls`;
  if (known && known.repo === repoLabel(repo)) {
    const p = await ghApi<PullJson>(ctx, repo, `${api}/${known.number}`, { what: `reads pull request #${known.number}` });
    if (p.state === "open") return p;
    const how = p.merged_at ? "merged" : "closed";
    throw new UserError(
      `Pull request #${p.number} (${p.html_url}) of this loop was ${how}; wt-loop opens no second one for the same branch. ` +
        (p.merged_at ? "Its work is merged: start a new loop for more." : `Reopen it (\`gh pr reopen ${p.number}\`) and run \`wt-loop pr\` again.`),
    );
  }
  const open = await ghApi<PullJson[]>(ctx, repo, api, {
    query: { head: `${repo.owner}:${branch}`, state: "open" },
    what: `looks for a pull request from ${branch}`,
  });
  return open[0] ?? null;
}

async function planOf(s: State): Promise<PlanStory[]> {
  if (!s.tasks_file) return [];
  try {
    return parseStories(readFileSync(s.tasks_file, "utf8")).map((st) => ({ id: st.id, title: st.title, complete: st.tasks.every((t) => t.done) }));
  } catch {
    return []; // the tasks file is gone: the receipt still says what each attempt did
  }
}

/**
 * The attempts of the earlier runs this run continues, oldest first, from their archived states (`loop-runs/`):
 * the runs before it on the same branch from the same commit, back to the one that continued nothing.
 */
async function earlierIterations(s: State): Promise<Iteration[]> {
  const paths = loopPaths(s.worktree_path);
  const chain: Iteration[][] = [];
  let continues = s.earlier_stories.length > 0;
  for (const { key } of archivedRuns(paths).reverse()) {
    if (!continues) break;
    const run = (await findRun(paths, key).catch(() => null))?.state;
    if (!run || run.started_at >= s.started_at) continue;
    if (run.checkpoint_branch !== s.checkpoint_branch || run.original_commit !== s.original_commit) break;
    chain.unshift(run.iterations);
    continues = run.earlier_stories.length > 0;
  }
  return chain.flat();
}

/** The files each commit of the loop changed: one `git log` for all of them. */
async function filesOf(git: Git, iterations: Iteration[]): Promise<Map<string, string[]>> {
  const shas = [...new Set(iterations.flatMap((i) => i.commits))];
  const out = new Map<string, string[]>();
  if (!shas.length) return out;
  const r = await git.run(["log", "--no-walk=unsorted", "--name-only", "--format=@@%H", ...shas], { allowFailure: true });
  let at: string[] | null = null;
  for (const line of r.stdout.split("\n")) {
    if (line.startsWith("@@")) out.set(line.slice(2), (at = []));
    else if (line.trim() && at) at.push(line.trim());
  }
  return out;
}

/** The repository's pull request template, as GitHub finds it (a single file; the first of its places). */
function template(worktree: string): string | null {
  for (const dir of [".github", "", "docs"]) {
    let names: string[];
    try {
      names = readdirSync(join(worktree, dir));
    } catch {
      continue;
    }
    const name = names.find((n) => n.toLowerCase() === "pull_request_template.md");
    if (name)
      try {
        return readFileSync(join(worktree, dir, name), "utf8");
      } catch {
        return null;
      }
  }
  return null;
}
