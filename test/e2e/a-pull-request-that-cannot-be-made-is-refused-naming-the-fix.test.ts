// A user asks for a pull request (`start --on-complete pr`, `wt-loop pr`) where one cannot be made: no `gh`, no
// login, no remote, a repository they cannot push to, stash checkpoints, a pull request of the loop that was
// closed or merged. Each is refused with exit 1 before anything is written or pushed, naming the fix. GitHub's
// rate limit is waited out, as an agent's usage limit is. The real `gh` against a scripted GitHub on 127.0.0.1.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { collect, fakeAgent, spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer, type GitHubServer } from "../helpers/github-server.ts";
import { addBareOrigin, git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const TASKS = "# Tasks\n\n## 1. First\n- [ ] a\n\n## 2. Second\n- [ ] b\n";
const servers: GitHubServer[] = [];
const server = (opts: { pushable?: boolean } = {}) => {
  const s = startGitHubServer(opts);
  servers.push(s);
  return s;
};
afterAll(() => servers.forEach((s) => s.stop()));

const env = (gh: GitHubServer, extra: Record<string, string> = {}) => ({ ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, ...extra });

function repoWithRemote(opts: { remote?: boolean } = {}): { repo: string; remote: string } {
  const repo = makeRepo({ "README.md": "# test\n", "tasks.md": TASKS });
  if (opts.remote === false) return { repo, remote: join(tempDir("remote-"), "origin.git") };
  return { repo, remote: addBareOrigin(repo) };
}

const noGhPath = () => {
  // The fake agents, bun, and every program of /usr/bin but gh (/bin is /usr/bin on this machine).
  const bin = tempDir("no-gh-");
  for (const name of readdirSync("/usr/bin")) if (name !== "gh") symlinkSync(join("/usr/bin", name), join(bin, name));
  return [testPath().split(":")[0]!, dirname(process.execPath), bin].join(":");
};

const remoteBranches = (remote: string) => (existsSync(remote) ? git(remote, "for-each-ref", "--format=%(refname)", "refs/heads/ralph") : "");

describe("start --on-complete pr: refused before anything is written", () => {
  test.each([
    ["no gh", {}, () => ({ PATH: noGhPath() }), /`gh` is not installed.*apt-get install gh/s],
    ["gh not logged in", {}, () => ({ GH_TOKEN: "", GH_ENTERPRISE_TOKEN: "" }), /not logged in to localhost:\d+.*gh auth login --hostname localhost:\d+/s],
    ["no git remote", { remote: false }, () => ({}), /no git remote to push the loop's branch to\. Add one \(`git remote add origin <url>`\)/],
    ["stash checkpoints", { stash: true }, () => ({}), /--on-complete pr works with --checkpoint branch \(the default\), not stash/],
  ])("%s: exit 1, the fix named", async (_, o: { remote?: boolean; stash?: boolean }, extra, message) => {
    const gh = server();
    const { repo, remote } = repoWithRemote(o);
    const r = await wtLoop(["start", "--on-complete", "pr", "--terminal", "inline", ...(o.stash ? ["--checkpoint", "stash"] : [])], {
      cwd: repo,
      env: env(gh, extra()),
    });
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(1);
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
    expect(remoteBranches(remote)).toBe("");
    expect(gh.pulls.size).toBe(0);
  });

  test("a fork the login cannot push to: refused, naming write access or your own fork", async () => {
    const gh = server({ pushable: false });
    const { repo } = repoWithRemote();
    const r = await wtLoop(["start", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env: env(gh) });
    expect(r.stderr).toContain("Your GitHub login cannot push to");
    expect(r.stderr).toContain("Ask for write access, or work in your own fork");
    expect(r.code).toBe(1);
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });
});

describe("the loop's pull request was closed or merged", () => {
  test("`pr` and a restart refuse, nothing pushed or written; reopened, `pr` updates it", async () => {
    const gh = server();
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const first = await wtLoop(["start", "--on-complete", "pr", "--max", "1", "--terminal", "inline"], { cwd: repo, env: env(gh, agent.env) });
    expect(first.code).toBe(2);
    const pr = [...gh.pulls.values()][0]!;
    const branch = readState(repo).checkpoint_branch!;
    const pushed = git(remote, "rev-parse", `refs/heads/${branch}`);
    pr.state = "closed";
    // A commit on the loop's branch since: it must not be pushed while the pull request is closed.
    git(repo, "commit", "-q", "--allow-empty", "-m", "later");
    const statePath = join(repo, ".claude/loop-state.json");
    const before = readFileSync(statePath, "utf8");
    const r = await wtLoop(["pr"], { cwd: repo, env: env(gh) });
    expect(r.stderr).toContain(`Pull request #${pr.number}`);
    expect(r.stderr).toContain(`was closed; wt-loop opens no second one for the same branch. Reopen it (\`gh pr reopen ${pr.number}\`)`);
    expect(r.code).toBe(1);
    expect(git(remote, "rev-parse", `refs/heads/${branch}`)).toBe(pushed);
    expect(readFileSync(statePath, "utf8")).toBe(before);

    pr.merged = true;
    const restart = await wtLoop(["start", "--max", "5", "--terminal", "inline"], { cwd: repo, env: env(gh, agent.env) });
    expect(restart.stderr).toContain("was merged");
    expect(restart.stderr).toContain("Its work is merged: start a new loop for more.");
    expect(restart.code).toBe(1);
    expect(readFileSync(statePath, "utf8")).toBe(before);
    expect(gh.pulls.size).toBe(1);

    pr.merged = false;
    pr.state = "open";
    const again = await wtLoop(["pr"], { cwd: repo, env: env(gh) });
    expect(again.code).toBe(0);
    expect(git(remote, "rev-parse", `refs/heads/${branch}`)).toBe(git(repo, "rev-parse", branch));
    expect(gh.pulls.size).toBe(1);
  });
});

describe("GitHub's rate limit", () => {
  test("`pr` waits until GitHub lifts it, says so, then opens the pull request; the token is nowhere", async () => {
    const gh = server();
    const { repo } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    expect((await wtLoop(["start", "--on-complete", "keep", "--terminal", "inline"], { cwd: repo, env: env(gh, agent.env) })).code).toBe(0);
    gh.refuse(
      /\/pulls$/,
      () => Response.json({ message: "API rate limit exceeded for user ID 1." }, { status: 403, headers: { "X-RateLimit-Remaining": "0" } }),
      2,
    );
    const r = await wtLoop(["pr"], { cwd: repo, env: env(gh, { WT_LOOP_WAIT_SCALE: "0.01" }) });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/GitHub's API rate limit is used up \(localhost:\d+\): waiting until \d\d:\d\d/);
    expect(r.stdout).toContain("opened pull request #");
    expect(gh.pulls.size).toBe(1);
    expect(gh.requests.filter((q) => q.path === "/rate_limit").length).toBeGreaterThan(0);
    const pr = [...gh.pulls.values()][0]!;
    for (const text of [
      r.stdout,
      r.stderr,
      pr.body,
      readFileSync(join(repo, ".claude/loop-state.json"), "utf8"),
      readFileSync(join(repo, ".claude/loop-events.jsonl"), "utf8"),
    ])
      expect(text).not.toContain("test-token");
  });

  test("a limit that would outlast --max-wait: `pr` ends with exit 1, saying when to run it again", async () => {
    const gh = server();
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    // --max-wait is remembered by the loop; 0.0001 h is 0.36 s, less than the backoff without a reset time.
    expect(
      (await wtLoop(["start", "--on-complete", "keep", "--max-wait", "0.0001", "--terminal", "inline"], { cwd: repo, env: env(gh, agent.env) })).code,
    ).toBe(0);
    gh.refuse(/\/repos\/acme\/widgets$/, () => Response.json({ message: "API rate limit exceeded" }, { status: 429 }), 1000);
    const r = await wtLoop(["pr"], { cwd: repo, env: env(gh) });
    expect(r.stderr).toContain("rate limit is used up");
    expect(r.stderr).toContain("would pass --max-wait");
    expect(r.stderr).toContain("run `wt-loop pr` once the limit is lifted");
    expect(r.code).toBe(1);
    expect(remoteBranches(remote)).toBe("");
    expect(gh.pulls.size).toBe(0);
  });
});

describe("GitHub's rate limit before and at the end of a loop", () => {
  const limited = () => Response.json({ message: "API rate limit exceeded for user ID 1." }, { status: 403, headers: { "X-RateLimit-Remaining": "0" } });

  test("start --on-complete pr: a limit during the start-up check is waited out, said, and the loop runs to its pull request", async () => {
    const gh = server();
    const { repo } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    gh.refuse(/\/repos\/acme\/widgets$/, limited, 2);
    const r = await wtLoop(["start", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env: env(gh, { ...agent.env, WT_LOOP_WAIT_SCALE: "0.01" }) });
    expect(`${r.stdout}${r.stderr}`).toMatch(/GitHub's API rate limit is used up \(localhost:\d+\): waiting until \d\d:\d\d.* before the loop starts/);
    expect(r.code).toBe(0);
    expect(readState(repo).status).toBe("done");
    expect(gh.pulls.size).toBe(1);
  }, 120_000);

  test("wt-loop stop during the wait at the end: the runner ends at once, the branch pushed, the state says no pull request yet; `pr` makes it", async () => {
    const gh = server();
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    // Only opening the pull request is limited (the look-up before the push is not): the branch is pushed, then it waits.
    const limit = gh.refuse(/\/pulls$/, limited, 1_000_000, "POST");
    const proc = spawnWtLoop(["start", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env: env(gh, agent.env) });
    try {
      const out = collect(proc.stdout);
      const err = collect(proc.stderr);
      await waitFor("the loop to wait for GitHub's rate limit", () => /the pull request waits until/.test(out.text() + err.text()), 60_000, {
        whileRunning: proc,
      });
      const stop = await wtLoop(["stop"], { cwd: repo });
      expect(stop.stderr).toBe("");
      expect(stop.code).toBe(0);
      // The loop's ending (done: every story) stands; only the pull request's step was cut short.
      expect(await proc.exited).toBe(0);
      const s = readState(repo);
      expect(s).toMatchObject({ status: "done", runner_pid: null, completion: "keep" });
      expect(s.pull_request ?? null).toBeNull();
      expect(s.reason).toContain("Stopped while waiting for it to be lifted.");
      expect(s.reason).toMatch(/Done: ralph\/\S+ is on origin at [0-9a-f]{12}; no pull request was opened \(`wt-loop pr` does it\)/);
      expect(git(remote, "rev-parse", `refs/heads/${s.checkpoint_branch}`)).toBe(git(repo, "rev-parse", s.checkpoint_branch));
      expect(gh.pulls.size).toBe(0);
      limit.lift();
      const pr = await wtLoop(["pr"], { cwd: repo, env: env(gh) });
      expect(pr.code).toBe(0);
      expect(gh.pulls.size).toBe(1);
    } finally {
      proc.kill("SIGKILL");
    }
  }, 180_000);
});

describe("wt-loop doctor", () => {
  test("reports gh and its login; with --on-complete pr a missing login is ✗ with the fix", async () => {
    const gh = server();
    const { repo } = repoWithRemote();
    const ready = await wtLoop(["doctor", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env: env(gh) });
    expect(ready.stdout).toMatch(/✓ gh +gh version [\d.]+.*, logged in to localhost:\d+/);
    expect(ready.code).toBe(0);
    const out = await wtLoop(["doctor", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env: env(gh, { GH_TOKEN: "", GH_ENTERPRISE_TOKEN: "" }) });
    expect(out.stdout).toMatch(/✗ gh +gh version [\d.]+.*, not logged in to localhost:\d+, and --on-complete pr needs it/);
    expect(out.stdout).toMatch(/gh auth login --hostname localhost:\d+ \(or set GH_TOKEN\)/);
    expect(out.code).toBe(1);
    // Nothing asks for it: shown, not a failure.
    const plain = await wtLoop(["doctor", "--terminal", "inline"], { cwd: repo, env: env(gh, { GH_TOKEN: "", GH_ENTERPRISE_TOKEN: "" }) });
    expect(plain.stdout).toMatch(/✓ gh +gh version [\d.]+.*, not logged in to localhost:\d+ \(gh auth login/);
  });
});
