// A user runs a loop from a GitHub issue with `--on-complete pr`, or runs `wt-loop pr` after it: the loop's branch
// is pushed (real `git push`, a local bare repository as the remote) and one pull request is opened through the
// real `gh` against a scripted GitHub on 127.0.0.1 — its body written by wt-loop from its records, `Closes #N`.
// Later runs update that same pull request; a kill -9 in the push or in the creation never makes a second one or
// loses a commit; a commit someone else pushed to the branch is never pushed over.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer, type GitHubServer } from "../helpers/github-server.ts";
import { addBareOrigin, git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { receiptOf, storyCost } from "../../src/record/receipt.ts";
import { formatCost } from "../../src/text/format.ts";
import { BODY_END, BODY_START } from "../../src/github/pr-text.ts";

const ISSUE = "We need a login page.\r\n\r\n- [ ] Route\r\n- [ ] Form\r\n- [ ] Tests\r\n";
const TEMPLATE = "## What changed\n\n(the author's words)\n";
// One scripted GitHub per test: every test's loop branch has the same name (its repository's folder is `repo`).
let gh: GitHubServer;
const servers: GitHubServer[] = [];
beforeEach(() => void servers.push((gh = startGitHubServer({ issues: [{ number: 7, title: "Add a login page", body: ISSUE }] }))));
afterAll(() => servers.forEach((s) => s.stop()));

const REAL_GIT = Bun.which("git")!;
const INLINE = ["--terminal", "inline"];

/** A repository with a pull request template, and a bare repository as its `origin` holding main. */
function repoWithRemote(): { repo: string; remote: string } {
  const repo = makeRepo({ "README.md": "# test\n", ".github/pull_request_template.md": TEMPLATE });
  const remote = addBareOrigin(repo);
  return { repo, remote };
}

const env = (extra: Record<string, string> = {}) => ({ ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, ...extra });
const pullsFrom = (branch: string) => [...gh.pulls.values()].filter((p) => p.head === branch);
const remoteHead = (remote: string, branch: string) => git(remote, "rev-parse", `refs/heads/${branch}`);
const ours = (body: string) => body.slice(body.indexOf(BODY_START), body.indexOf(BODY_END) + BODY_END.length);

describe("--on-complete pr", () => {
  test("an issue's 3 task-list items: 3 stories, done, one pull request with each story's proof; later runs update it", async () => {
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const start = ["start", "--issue", "7", "--on-complete", "pr", "--verify", "true", ...INLINE];
    // Stopped after one story: a draft, `Part of #7` (a merge must not close the issue), what is left and why.
    const first = await wtLoop([...start, "--max", "1"], { cwd: repo, env: env(agent.env) });
    expect(first.code).toBe(2);
    const branch = readState(repo).checkpoint_branch!;
    expect(pullsFrom(branch)).toHaveLength(1);
    const pr = pullsFrom(branch)[0]!;
    expect(pr.draft).toBe(true);
    expect(pr.title).toBe("Add a login page");
    expect(pr.base).toBe("main");
    expect(pr.body.startsWith(TEMPLATE.trimEnd())).toBe(true); // the repository's template first, ours below
    expect(pr.body).toContain("Part of #7");
    expect(pr.body).not.toContain("Closes #7");
    expect(pr.body).toMatch(/#### Left unfinished\n- 2\. Form — not attempted/);
    expect(remoteHead(remote, branch)).toBe(git(repo, "rev-parse", branch));
    expect(readState(repo).pull_request).toMatchObject({ number: pr.number, remote: "origin", pushed: git(repo, "rev-parse", branch) });

    // Someone edits the pull request's description around wt-loop's part: kept by every update.
    pr.body = `${pr.body}\n\nReviewer's note: looks fine.`;
    const second = await wtLoop([...start.slice(0, 1), "--max", "5", ...INLINE], { cwd: repo, env: env(agent.env) });
    expect(second.stderr).not.toContain("No pull request");
    expect(second.code).toBe(0);
    const s = readState(repo);
    expect(s.status).toBe("done");
    expect(s.stories_completed).toBe(3);
    expect(pullsFrom(branch)).toHaveLength(1); // updated, never a second
    expect(pr.draft).toBe(false); // ready once every story is done
    expect(pr.body).toContain("Closes #7");
    expect(pr.body).toContain("(the author's words)");
    expect(pr.body).toEndWith("Reviewer's note: looks fine.");
    expect(pr.body.split(BODY_START)).toHaveLength(2);
    for (const [id, title] of [
      ["1", "Route"],
      ["2", "Form"],
      ["3", "Tests"],
    ]) {
      const cost = storyCost(receiptOf(s).stories.find((l) => l.id === id)!) ?? 0;
      expect(cost).toBeGreaterThan(0);
      expect(pr.body).toMatch(new RegExp(`\\| ${id}\\. ${title} \\| ✅ accepted \\| 1 \\| [^|]+ \\| [^|]+ \\| \\${formatCost(cost)} \\|`));
      const detail = pr.body.slice(pr.body.indexOf(`#### ${id}. ${title}`));
      expect(detail).toMatch(/^#### \d\. \w+ — accepted\n\n- commits: `[0-9a-f]{12}`/);
      expect(detail).toMatch(/- files changed: [^\n]*`\.wt-loop\/issue-7\/tasks\.md`/);
      expect(detail).toMatch(/- verify `true`: attempt 1 passed in /);
    }
    expect(remoteHead(remote, branch)).toBe(git(repo, "rev-parse", branch));

    // `wt-loop pr` on the ended loop: the same pull request, its part replaced, nothing else.
    const before = ours(pr.body);
    const again = await wtLoop(["pr"], { cwd: repo, env: env() });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`updated pull request #${pr.number}`);
    expect(pullsFrom(branch)).toHaveLength(1);
    expect(ours(pr.body)).toBe(before);
    expect(pr.body).toEndWith("Reviewer's note: looks fine.");
    for (const r of gh.requests) expect(r.body).not.toContain("test-token");
    for (const f of [".claude/loop-state.json", ".claude/loop-events.jsonl"]) expect(readFileSync(join(repo, f), "utf8")).not.toContain("test-token");
  });
});

describe("wt-loop pr", () => {
  /** A loop of the issue run to `done`, its branch kept and not pushed. */
  async function endedLoop() {
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const r = await wtLoop(["start", "--issue", "7", "--on-complete", "keep", ...INLINE], { cwd: repo, env: env(agent.env) });
    expect(r.code).toBe(0);
    const branch = readState(repo).checkpoint_branch!;
    return { repo, remote, branch, tip: git(repo, "rev-parse", branch) };
  }

  /** PATH with a `git` whose `push` writes its pid to `mark` and sleeps instead: the push's window, held open. */
  function slowPushPath(mark: string): string {
    const dir = tempDir("slow-git-");
    const wrapper = join(dir, "git");
    writeFileSync(wrapper, `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = push ]; then echo $$ > '${mark}'; exec sleep 300; fi\ndone\nexec '${REAL_GIT}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    return `${dir}:${testPath()}`;
  }

  test("kill -9 during the push, then `pr` again: the commits are pushed, one pull request", async () => {
    const { repo, remote, branch, tip } = await endedLoop();
    const mark = join(tempDir("mark-"), "push.pid");
    const proc = spawnWtLoop(["pr"], { cwd: repo, env: env({ PATH: slowPushPath(mark) }) });
    const pusher = Number(await waitFor("the push to start", () => existsSync(mark) && readFileSync(mark, "utf8").trim(), 60_000, { whileRunning: proc }));
    proc.kill("SIGKILL");
    await proc.exited;
    process.kill(pusher, "SIGKILL"); // the wrapper's sleep, which we started
    expect(pullsFrom(branch)).toHaveLength(0);
    const again = await wtLoop(["pr"], { cwd: repo, env: env() });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(remoteHead(remote, branch)).toBe(tip);
    expect(pullsFrom(branch)).toHaveLength(1);
    expect(readState(repo).pull_request?.number).toBe(pullsFrom(branch)[0]!.number);
  });

  test("the loop's runner killed -9 in its push at the end: `start` says what happened, `pr` finishes it, one pull request", async () => {
    const { repo, remote } = repoWithRemote();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const mark = join(tempDir("mark-"), "push.pid");
    const proc = spawnWtLoop(["start", "--issue", "7", "--on-complete", "pr", ...INLINE], { cwd: repo, env: env({ ...agent.env, PATH: slowPushPath(mark) }) });
    const pusher = Number(await waitFor("the push to start", () => existsSync(mark) && readFileSync(mark, "utf8").trim(), 90_000, { whileRunning: proc }));
    proc.kill("SIGKILL");
    await proc.exited;
    process.kill(pusher, "SIGKILL");
    const branch = readState(repo).checkpoint_branch!;
    const again = await wtLoop(["start", ...INLINE], { cwd: repo, env: env() });
    expect(again.stdout + again.stderr).toContain("killed while it pushed its branch or opened its pull request");
    const pr = await wtLoop(["pr"], { cwd: repo, env: env() });
    expect(pr.stderr).toBe("");
    expect(pr.code).toBe(0);
    expect(remoteHead(remote, branch)).toBe(git(repo, "rev-parse", branch));
    expect(pullsFrom(branch)).toHaveLength(1);
  });

  test("kill -9 once GitHub made the pull request but before the answer came, then `pr` again: that one is updated", async () => {
    const { repo, branch, tip } = await endedLoop();
    const held = gh.hold("POST", /\/pulls$/);
    const proc = spawnWtLoop(["pr"], { cwd: repo, env: env() });
    await Promise.race([held.arrived, proc.exited.then((c) => Promise.reject(new Error(`wt-loop pr exited (${c}) before it asked for the pull request`)))]);
    proc.kill("SIGKILL");
    await proc.exited;
    held.release();
    expect(pullsFrom(branch)).toHaveLength(1);
    expect(readState(repo).pull_request).toBeNull(); // it never heard the number
    const again = await wtLoop(["pr"], { cwd: repo, env: env() });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(pullsFrom(branch)).toHaveLength(1);
    const pr = pullsFrom(branch)[0]!;
    expect(again.stdout).toContain(`updated pull request #${pr.number}`);
    expect(readState(repo).pull_request).toMatchObject({ number: pr.number, pushed: tip });
  });

  test("a commit someone else pushed to the loop's branch is never pushed over", async () => {
    const { repo, remote, branch } = await endedLoop();
    // Another clone pushes its own commit to the branch first.
    const other = join(tempDir("other-"), "clone");
    git(tempDir(), "clone", "-q", remote, other);
    git(other, "checkout", "-q", "-b", branch);
    writeFileSync(join(other, "theirs.txt"), "theirs\n");
    git(other, "add", "theirs.txt");
    git(other, "-c", "user.name=Other", "-c", "user.email=o@example.com", "commit", "-q", "-m", "theirs");
    git(other, "push", "-q", "origin", branch);
    const theirs = git(other, "rev-parse", "HEAD");
    const r = await wtLoop(["pr"], { cwd: repo, env: env() });
    expect(r.stderr).toContain(`${branch} on origin has commits the loop did not push`);
    expect(r.stderr).toContain("git merge FETCH_HEAD");
    expect(r.code).toBe(1);
    expect(remoteHead(remote, branch)).toBe(theirs);
    expect(pullsFrom(branch)).toHaveLength(0);
  });

  test("a loop still running, or none at all, is refused", async () => {
    const r = await wtLoop(["pr"], { cwd: makeRepo(), env: env() });
    expect(r.stderr).toContain("No loop has run here yet");
    expect(r.code).toBe(1);
  });
});
