/**
 * A scripted GitHub for the real `gh` (docs: /work/shared/reference/gh-against-local-api.md): HTTPS on
 * 127.0.0.1 with a test certificate, REST under `/api/v3/`, one repository held in memory. `gh` talks to it as
 * GitHub Enterprise through `env()`; every request is recorded so a test can check what was sent. The
 * server stops itself after a while without requests, so a test that dies leaves nothing listening.
 */
import { writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./repo.ts";

export interface ScriptedIssue {
  number: number;
  title: string;
  body: string;
  state?: "open" | "closed";
  labels?: string[];
  /** A pull request answers the issues endpoint too, marked so. */
  pull?: boolean;
}

export interface Comment {
  id: number;
  issue: number;
  body: string;
}

export interface ScriptedPull {
  number: number;
  title: string;
  head: string;
  base: string;
  body: string;
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  /** The head commit GitHub knows (a test sets it to what was pushed); its check runs are `checks`. */
  headSha?: string;
  checks?: ScriptedCheck[];
  reviews?: ScriptedReview[];
}

export interface ScriptedCheck {
  id: number;
  name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: "success" | "failure" | "timed_out" | "cancelled" | "skipped" | "neutral" | null;
  output?: { title?: string; summary?: string; text?: string };
}

export interface ScriptedReview {
  id: number;
  user: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED";
  body: string;
  comments: { path: string; line: number | null; body: string }[];
}

export interface GitHubServer {
  /** `localhost:PORT`: the value of GH_HOST and the host part of every URL. */
  host: string;
  owner: string;
  repo: string;
  issues: Map<number, ScriptedIssue>;
  comments: Comment[];
  /** Pull requests, numbered after the issues. */
  pulls: Map<number, ScriptedPull>;
  /**
   * The next request whose method and path match is carried out, then its answer is held until `release`:
   * `arrived` resolves once it is held (a test kills its client there, the work done and never answered).
   */
  hold(method: string, match: RegExp): { arrived: Promise<void>; release(): void };
  /** Every request: method, path with query, body text. */
  requests: { method: string; path: string; body: string }[];
  /** Answer the next requests whose path (and `method`, when given) matches with this instead (a rate limit, an outage); `lift` ends it. */
  refuse(match: RegExp, response: () => Response, times?: number, method?: string): { lift(): void };
  /** The environment `gh` needs to talk to this server and nothing else (a fresh config folder, a token). */
  env(): Record<string, string>;
  stop(): void;
}

const IDLE_STOP_MS = 10 * 60_000;

let certDir: string | null = null;
/** One certificate per test file (its folder goes when the file ends, helpers/repo.ts), for `localhost` and 127.0.0.1. */
export function testCertificate(): { cert: string; key: string } {
  if (!certDir || !existsSync(join(certDir, "cert.pem"))) {
    certDir = tempDir("gh-cert-");
    const r = Bun.spawnSync(
      [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
      ],
      { cwd: certDir, stderr: "pipe" },
    );
    if (r.exitCode !== 0) throw new Error(`openssl could not make the test certificate: ${r.stderr.toString()}`);
  }
  return { cert: join(certDir, "cert.pem"), key: join(certDir, "key.pem") };
}

export function startGitHubServer(opts: { owner?: string; repo?: string; issues?: ScriptedIssue[]; pushable?: boolean } = {}): GitHubServer {
  const owner = opts.owner ?? "acme";
  const repo = opts.repo ?? "widgets";
  const issues = new Map((opts.issues ?? []).map((i) => [i.number, { state: "open" as const, ...i }]));
  const comments: Comment[] = [];
  const pulls = new Map<number, ScriptedPull>();
  const holds: { method: string; match: RegExp; arrived: () => void; released: Promise<void> }[] = [];
  const requests: GitHubServer["requests"] = [];
  const refusals: { match: RegExp; response: () => Response; left: number; method?: string }[] = [];
  let rateLimited = false; // the last answer was a limit: /rate_limit says it is spent
  const { cert, key } = testCertificate();
  let nextComment = 1000;
  let host = ""; // localhost:PORT, once the server listens
  let idle: ReturnType<typeof setTimeout> | null = null;
  const arm = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => server.stop(true), IDLE_STOP_MS);
    idle.unref?.();
  };
  const base = (): string => `https://${host}`;
  const issueJson = (i: ScriptedIssue): Record<string, unknown> => ({
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state ?? "open",
    html_url: `${base()}/${owner}/${repo}/${i.pull ? "pull" : "issues"}/${i.number}`,
    labels: (i.labels ?? []).map((name) => ({ name })),
    ...(i.pull ? { pull_request: { url: `${base()}/api/v3/repos/${owner}/${repo}/pulls/${i.number}` } } : {}),
  });
  const repoJson = (): Record<string, unknown> => ({
    full_name: `${owner}/${repo}`,
    name: repo,
    owner: { login: owner },
    html_url: `${base()}/${owner}/${repo}`,
    default_branch: "main",
    permissions: { admin: false, push: opts.pushable ?? true, pull: true },
  });
  const pullJson = (p: ScriptedPull): Record<string, unknown> => ({
    number: p.number,
    node_id: `PR_${p.number}`,
    title: p.title,
    body: p.body,
    state: p.state,
    draft: p.draft,
    merged_at: p.merged ? "2026-11-28T00:00:00Z" : null,
    html_url: `${base()}/${owner}/${repo}/pull/${p.number}`,
    head: { ref: p.head, label: `${owner}:${p.head}`, sha: p.headSha ?? "0".repeat(40) },
    base: { ref: p.base },
  });
  const nextNumber = () => Math.max(0, ...issues.keys(), ...pulls.keys()) + 1;
  const notFound = () => Response.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest" }, { status: 404 });

  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert), key: Bun.file(key) },
    async fetch(req): Promise<Response> {
      arm();
      const url = new URL(req.url);
      const body = await req.text();
      const path = url.pathname.replace(/^\/api\/v3/, "");
      requests.push({ method: req.method, path: path + url.search, body });
      const res = answer(req, url, path, body);
      const h = holds.findIndex((x) => x.method === req.method && x.match.test(path));
      if (h >= 0) {
        const [held] = holds.splice(h, 1);
        held!.arrived();
        await held!.released;
      }
      return res;
    },
  });
  function answer(req: Request, url: URL, path: string, body: string): Response {
    {
      const refusal = refusals.find((r) => r.left > 0 && r.match.test(path) && (!r.method || r.method === req.method));
      if (refusal) {
        refusal.left--;
        const r = refusal.response();
        rateLimited = r.status === 403 || r.status === 429;
        return r;
      }
      if (path !== "/rate_limit") rateLimited = false;
      // As GitHub: a request without a token is refused (the public reads gh might still make are not needed here).
      if (!/^token \S+/.test(req.headers.get("authorization") ?? "")) return Response.json({ message: "Requires authentication" }, { status: 401 });
      const json = body && req.method !== "GET" ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (path === "/api/graphql" && /UserCurrent/.test(body)) return Response.json({ data: { viewer: { login: "tester" } } });
      // `gh auth status` asks the API root and reads the token's scopes from this header.
      if (path === "/" || path === "") return Response.json({}, { headers: { "X-Oauth-Scopes": "repo, read:org" } });
      // Not counted against the limit: when a refused rate limit lifts (one second from now, for the tests that hit it).
      if (path === "/rate_limit") {
        const spent = refusals.some((r) => r.left > 0) || rateLimited;
        const reset = Math.ceil(Date.now() / 1000) + 1;
        return Response.json({ resources: { core: { limit: 5000, remaining: spent ? 0 : 4999, reset }, graphql: { limit: 5000, remaining: 4999, reset } } });
      }
      if (path === "/user") return Response.json({ login: "tester" }, { headers: { "X-Oauth-Scopes": "repo, read:org" } });
      const repoPath = `/repos/${owner}/${repo}`;
      if (path === repoPath && req.method === "GET") return Response.json(repoJson());
      if (path === "/search/issues" && req.method === "GET") {
        const q = url.searchParams.get("q") ?? "";
        const labels = [...q.matchAll(/label:("[^"]+"|\S+)/g)].map((m) => m[1]!.replace(/"/g, ""));
        const open = /is:open/.test(q);
        const items = [...issues.values()]
          .filter((i) => !i.pull && labels.every((l) => i.labels?.includes(l)) && (!open || (i.state ?? "open") === "open"))
          .map(issueJson);
        return Response.json({ total_count: items.length, incomplete_results: false, items });
      }
      const issue = new RegExp(`^${repoPath}/issues/(\\d+)$`).exec(path);
      if (issue) {
        const i = issues.get(Number(issue[1]));
        if (!i) return notFound();
        if (req.method === "PATCH") {
          if (typeof json.body === "string") i.body = json.body;
          if (typeof json.title === "string") i.title = json.title;
        }
        return Response.json(issueJson(i));
      }
      const newComment = new RegExp(`^${repoPath}/issues/(\\d+)/comments$`).exec(path);
      if (newComment && req.method === "GET")
        return Response.json(comments.filter((c) => c.issue === Number(newComment[1])).map((c) => ({ id: c.id, body: c.body })));
      if (newComment && req.method === "POST") {
        if (!issues.has(Number(newComment[1]))) return notFound();
        const c = { id: nextComment++, issue: Number(newComment[1]), body: String(json.body ?? "") };
        comments.push(c);
        return Response.json({ id: c.id, body: c.body, html_url: `${base()}/${owner}/${repo}/issues/${c.issue}#issuecomment-${c.id}` }, { status: 201 });
      }
      const comment = new RegExp(`^${repoPath}/issues/comments/(\\d+)$`).exec(path);
      if (comment) {
        const c = comments.find((x) => x.id === Number(comment[1]));
        if (!c) return notFound();
        if (req.method === "PATCH") c.body = String(json.body ?? c.body);
        return Response.json({ id: c.id, body: c.body });
      }
      if (path === `${repoPath}/pulls` && req.method === "GET") {
        const head = url.searchParams.get("head");
        const state = url.searchParams.get("state") ?? "open";
        const found = [...pulls.values()].filter((p) => (!head || `${owner}:${p.head}` === head) && (state === "all" || p.state === state));
        return Response.json(found.map(pullJson));
      }
      if (path === `${repoPath}/pulls` && req.method === "POST") {
        const head = String(json.head ?? "");
        // As GitHub: one open pull request per head branch.
        if ([...pulls.values()].some((p) => p.head === head && p.state === "open"))
          return Response.json(
            {
              message: "Validation Failed",
              errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${head}.` }],
            },
            { status: 422 },
          );
        const p: ScriptedPull = {
          number: nextNumber(),
          title: String(json.title ?? ""),
          head,
          base: String(json.base ?? "main"),
          body: String(json.body ?? ""),
          state: "open",
          merged: false,
          draft: json.draft === true,
        };
        pulls.set(p.number, p);
        return Response.json(pullJson(p), { status: 201 });
      }
      const pull = new RegExp(`^${repoPath}/pulls/(\\d+)$`).exec(path);
      if (pull) {
        const p = pulls.get(Number(pull[1]));
        if (!p) return notFound();
        if (req.method === "PATCH") {
          if (typeof json.body === "string") p.body = json.body;
          if (typeof json.title === "string") p.title = json.title;
        }
        return Response.json(pullJson(p));
      }
      const checkRuns = new RegExp(`^${repoPath}/commits/([0-9a-f]{40})/check-runs$`).exec(path);
      if (checkRuns && req.method === "GET") {
        const runs = [...pulls.values()].filter((p) => p.headSha === checkRuns[1]).flatMap((p) => p.checks ?? []);
        return Response.json({
          total_count: runs.length,
          check_runs: runs.map((c) => ({ ...c, head_sha: checkRuns[1], output: { title: null, summary: null, text: null, ...c.output } })),
        });
      }
      const reviews = new RegExp(`^${repoPath}/pulls/(\\d+)/reviews$`).exec(path);
      if (reviews && req.method === "GET") {
        const p = pulls.get(Number(reviews[1]));
        if (!p) return notFound();
        return Response.json((p.reviews ?? []).map((r) => ({ id: r.id, user: { login: r.user }, state: r.state, body: r.body })));
      }
      const reviewComments = new RegExp(`^${repoPath}/pulls/(\\d+)/reviews/(\\d+)/comments$`).exec(path);
      if (reviewComments && req.method === "GET") {
        const r = pulls.get(Number(reviewComments[1]))?.reviews?.find((x) => x.id === Number(reviewComments[2]));
        if (!r) return notFound();
        return Response.json(r.comments.map((c, i) => ({ id: r.id * 100 + i, path: c.path, line: c.line, original_line: c.line, body: c.body })));
      }
      if (path === "/api/graphql" && /markPullRequestReadyForReview/.test(body)) {
        const id = String((json.variables as { id?: string } | undefined)?.id ?? "");
        const p = pulls.get(Number(id.replace(/^PR_/, "")));
        if (!p) return Response.json({ data: null, errors: [{ type: "NOT_FOUND", message: `Could not resolve to a node with the global id of '${id}'` }] });
        p.draft = false;
        return Response.json({ data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } } });
      }
      return notFound();
    }
  }
  host = `localhost:${server.port}`;
  arm();
  let configDir: string | null = null;
  return {
    host,
    owner,
    repo,
    issues,
    comments,
    pulls,
    hold(method, match) {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((r) => (arrived = r));
      const released = new Promise<void>((r) => (release = r));
      holds.push({ method, match, arrived, released });
      return { arrived: arrival, release };
    },
    requests,
    refuse(match, response, times = 1, method) {
      const r = { match, response, left: times, method };
      refusals.push(r);
      return { lift: () => void (r.left = 0) };
    },
    env() {
      if (!configDir) {
        configDir = tempDir("gh-config-");
        writeFileSync(join(configDir, "config.yml"), "prompt: disabled\n");
      }
      return {
        GH_HOST: host,
        GH_ENTERPRISE_TOKEN: "test-token-never-shown",
        GH_TOKEN: "test-token-never-shown",
        GH_PROMPT_DISABLED: "1",
        GH_NO_UPDATE_NOTIFIER: "1",
        GH_CONFIG_DIR: configDir,
        SSL_CERT_FILE: cert,
      };
    },
    stop: () => {
      if (idle) clearTimeout(idle);
      server.stop(true);
    },
  };
}
