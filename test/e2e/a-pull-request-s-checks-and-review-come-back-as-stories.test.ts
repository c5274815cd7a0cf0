// A user's pull request (opened by the loop) has a failing check and a review asking for changes: `wt-loop start
// --pr N` appends them to the loop's tasks file as two stories, the loop runs them on the same branch, pushes again
// and updates the same pull request. The real `gh` against a scripted GitHub on 127.0.0.1, a bare repository as the remote.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer, type GitHubServer } from "../helpers/github-server.ts";
import { addBareOrigin, git, makeRepo, tempDir } from "../helpers/repo.ts";

const TASKS = "# Tasks\n\n## 1. First\n- [ ] a\n\n## 2. Second\n- [ ] b\n";
const servers: GitHubServer[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

async function loopWithPullRequest() {
  const gh = startGitHubServer();
  servers.push(gh);
  const repo = makeRepo({ "README.md": "# test\n", "tasks.md": TASKS });
  const remote = addBareOrigin(repo);
  const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
  const env = { ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, WT_LOOP_WAIT_SCALE: "0.001", ...agent.env };
  const first = await wtLoop(["start", "--on-complete", "pr", "--terminal", "inline"], { cwd: repo, env });
  expect(first.code).toBe(0);
  const pr = [...gh.pulls.values()][0]!;
  const branch = readState(repo).checkpoint_branch!;
  pr.headSha = git(remote, "rev-parse", `refs/heads/${branch}`);
  return { gh, repo, remote, env, pr, branch };
}

describe("start --pr N", () => {
  test("a failing check and a review asking for changes: two stories, run, pushed, the same pull request updated", async () => {
    const { gh, repo, remote, env, pr, branch } = await loopWithPullRequest();
    const before = pr.headSha!;
    pr.checks = [
      { id: 1, name: "unit tests", status: "completed", conclusion: "failure", output: { title: "1 failing", text: "ok a\nFAIL b: expected 2, got 3" } },
      { id: 2, name: "lint", status: "completed", conclusion: "success" },
    ];
    pr.reviews = [
      { id: 10, user: "ana", state: "CHANGES_REQUESTED", body: "Two things.", comments: [{ path: "src/a.ts", line: 3, body: "Use const here." }] },
      { id: 11, user: "bo", state: "CHANGES_REQUESTED", body: "Nit.", comments: [] },
      { id: 12, user: "bo", state: "APPROVED", body: "Fine after all.", comments: [] },
    ];
    const r = await wtLoop(["start", "--pr", String(pr.number), "--terminal", "inline"], { cwd: repo, env });
    expect(r.stderr).toContain(`Pull request #${pr.number}: 1 failing check and 1 review asking for changes, added to tasks.md`);
    expect(r.code).toBe(0);
    const tasks = readFileSync(join(repo, "tasks.md"), "utf8");
    expect(tasks).toContain(`## 3. Make the check \`unit tests\` pass (pull request #${pr.number})`);
    expect(tasks).toContain("FAIL b: expected 2, got 3");
    expect(tasks).toContain(`## 4. Address the changes @ana requested (pull request #${pr.number})`);
    expect(tasks).toContain("- [x] `src/a.ts:3`: Use const here.");
    expect(tasks).toContain("- [x] Two things.");
    expect(tasks).not.toContain("@bo"); // bo approved after asking for changes
    const s = readState(repo);
    expect(s.status).toBe("done");
    expect(s.stories_completed).toBe(4);
    // Pushed again: the remote's branch moved to the loop's new commits, and the same pull request says so.
    const tip = git(repo, "rev-parse", branch);
    expect(tip).not.toBe(before);
    expect(git(remote, "rev-parse", `refs/heads/${branch}`)).toBe(tip);
    expect(gh.pulls.size).toBe(1);
    expect(pr.body).toContain("| 4. Address the changes @ana requested");
    expect(gh.requests.some((q) => q.method === "PATCH" && q.path.endsWith(`/pulls/${pr.number}`))).toBe(true);
  });

  test("checks still running are waited for, then read", async () => {
    const { gh, repo, env, pr } = await loopWithPullRequest();
    const check = { id: 1, name: "e2e", status: "in_progress" as const, conclusion: null, output: { text: "boom" } };
    pr.checks = [check];
    // The check ends failing after the loop has asked about it twice.
    let asked = 0;
    const poll = setInterval(() => {
      asked = gh.requests.filter((q) => q.path.includes("/check-runs")).length;
      if (asked >= 2) Object.assign(check, { status: "completed", conclusion: "failure" });
    }, 5);
    const r = await wtLoop(["start", "--pr", String(pr.number), "--dry-run"], { cwd: repo, env });
    clearInterval(poll);
    expect(r.stderr).toContain(`Waiting for the checks of pull request #${pr.number} still running: e2e.`);
    expect(r.stderr).toContain("Would add to tasks.md: 3. Make the check `e2e` pass");
    expect(r.code).toBe(0);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("e2e");
  });

  test.each([
    ["no such pull request", (n: number) => n + 50, /Pull request #\d+ was not found/, 1],
    ["nothing asked", (n: number) => n, /has no failing check and no review asking for changes: there is nothing to add/, 0],
  ])("%s: said, nothing written", async (_, pick, message, code) => {
    const { repo, env, pr } = await loopWithPullRequest();
    const before = readFileSync(join(repo, "tasks.md"), "utf8");
    const r = await wtLoop(["start", "--pr", String(pick(pr.number)), "--terminal", "inline"], { cwd: repo, env });
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toBe(before);
  });

  test("a closed pull request is refused, nothing written", async () => {
    const { repo, env, pr } = await loopWithPullRequest();
    pr.state = "closed";
    const r = await wtLoop(["start", "--pr", String(pr.number), "--terminal", "inline"], { cwd: repo, env });
    expect(r.stderr).toContain(`is closed: there is nothing to fix on it. Reopen it (\`gh pr reopen ${pr.number}\`) first.`);
    expect(r.code).toBe(1);
  });
});
