/**
 * GitHub through its own CLI, `gh`, run as a child process (docs/github.md). wt-loop has no HTTP client
 * and never sees a token: `gh` holds the user's login (its keyring, GH_TOKEN, an Enterprise host), and
 * what it prints is passed through `redact` before it can reach a message, the state or a log.
 */
import { CommandError, exec } from "../proc/spawn.ts";
import { UserError } from "../errors.ts";

/** A repository on a GitHub host: `github.com` or an Enterprise server (`host[:port]`). */
export interface RepoId {
  host: string;
  owner: string;
  name: string;
}

export const repoName = (r: RepoId) => `${r.owner}/${r.name}`;
/** As the user would type it: `owner/repo` on github.com, `host/owner/repo` elsewhere. */
export const repoLabel = (r: RepoId) => (r.host === "github.com" ? repoName(r) : `${r.host}/${repoName(r)}`);

export interface GhContext {
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export const INSTALL_GH = "Install GitHub's CLI (https://cli.github.com; Debian and Ubuntu: `apt-get install gh`), log in with `gh auth login`, and try again.";

/** GitHub said its rate limit is used up: the caller may wait (as for an agent's usage limit) or give up. */
export class GhRateLimited extends UserError {
  override name = "GhRateLimited";
  constructor(
    message: string,
    /** The GitHub host whose limit it is. */
    readonly host: string,
  ) {
    super(message);
  }
}

/** What a failed `gh` call means for the user, by what `gh` printed. `what`: the request, in words. */
export function ghFailure(err: unknown, what: string, host: string, notFound?: string): Error {
  if (!(err instanceof CommandError)) return err instanceof Error ? err : new Error(String(err));
  if (err.reason === "missing") return new UserError(`GitHub's CLI \`gh\` is not installed, and ${what} needs it. ${INSTALL_GH}`);
  if (err.reason === "timeout")
    return new UserError(`\`gh\` did not answer in time while it ${what} (${host}). Check the network (or raise --command-timeout) and try again.`);
  if (err.reason === "aborted") return err;
  const said = redact(err.stderr.trim() || err.message);
  if (/rate limit/i.test(said))
    return new GhRateLimited(`GitHub's API rate limit is used up (${host}) while it ${what}: ${said}. Wait a while (an hour at most) and try again.`, host);
  if (/HTTP 401|Bad credentials|Requires authentication|authentication failed|gh auth login/i.test(said))
    return new UserError(`\`gh\` is not logged in to ${host} (${said}). Run \`gh auth login --hostname ${host}\` (or set GH_TOKEN), then try again.`);
  if (/HTTP 404/.test(said) && notFound) return new UserError(notFound);
  if (/HTTP 403/.test(said))
    return new UserError(
      `GitHub refused while it ${what} (${said}): the login \`gh\` uses lacks the permission. See docs/github.md for the permissions a token needs.`,
    );
  if (/dial tcp|connection refused|no such host|TLS handshake|i\/o timeout|network is unreachable|error connecting/i.test(said))
    return new UserError(`Could not reach ${host} while it ${what} (${said}). Check the network and try again.`);
  if (/no git remotes|none of the git remotes|unable to expand placeholder/i.test(said))
    return new UserError(
      `This repository has no remote on a GitHub host \`gh\` knows (${said}). ` +
        `Give the repository in the reference (\`owner/repo#123\` or the issue's URL), or set GH_REPO=owner/repo.`,
    );
  return new UserError(`\`gh\` failed while it ${what} (${host}): ${said}`);
}

/** The environment a `gh` call gets: the user's (their login), never a prompt, the pager or an update check. */
function ghEnv(base: Record<string, string | undefined>, host: string | null, repo?: string): Record<string, string | undefined> {
  return {
    ...base,
    ...(host ? { GH_HOST: host } : {}),
    ...(repo ? { GH_REPO: repo } : {}),
    GH_PROMPT_DISABLED: "1",
    GH_NO_UPDATE_NOTIFIER: "1",
    GH_PAGER: "cat",
    NO_COLOR: "1",
  };
}

export interface ApiCall {
  method?: "GET" | "POST" | "PATCH";
  /** Sent as the JSON body (`--input -`). */
  body?: unknown;
  /** Query fields of a GET (`-f key=value`). */
  query?: Record<string, string>;
  /** What the call does, in words, for an error: "reads issue #12". */
  what: string;
  /** The message when GitHub answers 404. */
  notFound?: string;
  /** Every page (`--paginate`), filtered by this jq expression (`--jq`): the answer is its output's lines. */
  jq?: string;
}

/**
 * `gh api PATH` on `repo`'s host; `repo` null: gh finds the repository itself (GH_REPO, the git remotes) and
 * fills `{owner}/{repo}` in the path. Returns the parsed JSON answer.
 */
export async function ghApi<T>(ctx: GhContext, repo: RepoId | null, path: string, call: ApiCall): Promise<T> {
  const out = await ghApiText(ctx, repo, path, call);
  return JSON.parse(out || "null") as T;
}

/** `gh api` as text: with `jq`, its lines. */
export async function ghApiText(ctx: GhContext, repo: RepoId | null, path: string, call: ApiCall): Promise<string> {
  const argv = ["gh", "api", path];
  if (call.jq) argv.push("--paginate", "--jq", call.jq);
  if (call.method || call.query) argv.push("-X", call.method ?? "GET"); // fields alone would make gh POST
  for (const [k, v] of Object.entries(call.query ?? {})) argv.push("-f", `${k}=${v}`);
  if (call.body !== undefined) argv.push("--input", "-");
  const host = repo?.host ?? ctx.env?.GH_HOST ?? process.env.GH_HOST ?? "github.com";
  try {
    const r = await exec(argv, {
      cwd: ctx.cwd,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      env: ghEnv(ctx.env ?? process.env, repo?.host ?? null),
      input: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    return r.stdout;
  } catch (err) {
    throw ghFailure(err, call.what, host, call.notFound);
  }
}

/** Refuses, naming the fix, when `gh` is missing or not logged in to `host` (`gh auth status`). */
export async function requireGhLogin(ctx: GhContext, host: string): Promise<void> {
  try {
    await exec(["gh", "auth", "status", "--hostname", host], {
      cwd: ctx.cwd,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      env: ghEnv(ctx.env ?? process.env, host),
    });
  } catch (err) {
    const e = ghFailure(err, "checks its login", host);
    // `auth status` says little more than "failed": anything but a missing gh or an unreachable host is a login to make.
    if (err instanceof CommandError && err.reason === "exit" && !/Could not reach/.test(e.message))
      throw new UserError(`\`gh\` is not logged in to ${host}: run \`gh auth login --hostname ${host}\` (or set GH_TOKEN), then try again.`);
    throw e;
  }
}

const TOKEN_VARS = ["GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"];
/** GitHub's token shapes (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_) and the tokens in our environment, blanked. */
export function redact(text: string, env: Record<string, string | undefined> = process.env): string {
  let out = text.replace(/\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})\b/g, "***");
  for (const k of TOKEN_VARS) {
    const v = env[k];
    if (v && v.length >= 4) out = out.split(v).join("***");
  }
  return out;
}
