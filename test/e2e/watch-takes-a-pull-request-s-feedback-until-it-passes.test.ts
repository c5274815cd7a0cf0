// `start --on-complete pr --watch`: the loop pushes, opens its pull request and waits for its checks. A check that
// fails becomes a story, which the loop runs on the same branch and pushes again; when the checks pass it ends done.
// A pull request merged while the loop watches ends it done, saying so, with nothing more pushed. `--watch` without
// a pull request is refused. The real `gh` against a scripted GitHub on 127.0.0.1, a bare repository as origin; the
// test plays CI: each new commit on the remote's branch gets the checks the test scripts for it.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { collect, fakeAgent, readEvents, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer, type GitHubServer, type ScriptedCheck } from "../helpers/github-server.ts";
import { addBareOrigin, git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const TASKS = "# Tasks\n\n## 1. First\n- [ ] a\n\n## 2. Second\n- [ ] b\n";
const servers: GitHubServer[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

function setUp() {
  const gh = startGitHubServer();
  servers.push(gh);
  const repo = makeRepo({ "README.md": "# test\n", "tasks.md": TASKS });
  const remote = addBareOrigin(repo);
  const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
  // 0.05: GitHub asked every 1.5 s, and 15 s for the pushed commit and its first check to show.
  const env = { ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, WT_LOOP_WAIT_SCALE: "0.05", ...agent.env };
  return { gh, repo, remote, env };
}

/** Plays CI: the n-th commit pushed to the loop's branch (once its pull request exists) becomes the head, with `checksFor(n)`. */
function scriptedCi(gh: GitHubServer, remote: string, checksFor: (n: number) => ScriptedCheck[]) {
  const seen: string[] = [];
  const timer = setInterval(() => {
    const pr = [...gh.pulls.values()][0];
    if (!pr || !existsSync(remote)) return;
    const tip = git(remote, "for-each-ref", "--format=%(objectname)", "refs/heads/ralph").split("\n")[0];
    if (!tip || tip === seen.at(-1)) return;
    seen.push(tip);
    Object.assign(pr, { headSha: tip, checks: checksFor(seen.length) });
  }, 20);
  return { seen, stop: () => clearInterval(timer) };
}

describe("--watch", () => {
  test("a check fails after the first push: a story, run, pushed again; the check passes: done", async () => {
    const { gh, repo, remote, env } = setUp();
    const ci = scriptedCi(gh, remote, (n) =>
      n === 1
        ? [{ id: 1, name: "unit tests", status: "completed", conclusion: "failure", output: { title: "1 failing", text: "FAIL b: expected 2, got 3" } }]
        : [{ id: 2, name: "unit tests", status: "completed", conclusion: "success" }],
    );
    try {
      const r = await wtLoop(["start", "--on-complete", "pr", "--watch", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 180_000 });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const s = readState(repo);
      expect(s.status).toBe("done");
      expect(s.watch).toBe(true);
      expect(s.stories_completed).toBe(3);
      expect(s.reason).toContain(`Pull request #${s.pull_request!.number}: its checks pass and no changes are requested.`);
      const tasks = readFileSync(join(repo, "tasks.md"), "utf8");
      expect(tasks).toContain(`## 3. Make the check \`unit tests\` pass (pull request #${s.pull_request!.number})`);
      expect(tasks).toContain("> FAIL b: expected 2, got 3");
      // Pushed twice: the failing head, then the fix; the remote's branch is the loop's tip; one pull request, ready.
      expect(ci.seen.length).toBe(2);
      const tip = git(repo, "rev-parse", s.checkpoint_branch!);
      expect(ci.seen[1]).toBe(tip);
      expect(git(remote, "rev-parse", `refs/heads/${s.checkpoint_branch}`)).toBe(tip);
      expect(gh.pulls.size).toBe(1);
      const pr = [...gh.pulls.values()][0]!;
      expect(pr.draft).toBe(false);
      expect(pr.body).toContain("3. Make the check `unit tests` pass");
      // Said as it went: the feedback taken in (the checks had ended when asked: nothing was waited for).
      expect(r.stdout).toContain(`↩ Pull request #${pr.number}: 1 failing check, added to tasks.md as 3. Make the check`);
      expect(readEvents(repo).filter((e) => e.type === "Feedback")).toHaveLength(1);
      expect(s.iterations.map((i: { outcome: string }) => i.outcome)).toEqual(["complete", "complete", "complete"]);
    } finally {
      ci.stop();
    }
  }, 240_000);

  test("with --parallel 2: the failing check's story runs in a lane, is pushed again, and the loop ends done", async () => {
    const { gh, repo, remote, env } = setUp();
    const ci = scriptedCi(gh, remote, (n) =>
      n === 1
        ? [{ id: 1, name: "lint", status: "completed", conclusion: "failure", output: { title: "1 problem", text: "b.ts: unused x" } }]
        : [{ id: 2, name: "lint", status: "completed", conclusion: "success" }],
    );
    try {
      const r = await wtLoop(["start", "--parallel", "2", "--on-complete", "pr", "--watch", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 180_000 });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const s = readState(repo);
      expect(s).toMatchObject({ status: "done", watch: true, parallel: 2, stories_completed: 3, runner_pid: null });
      expect(s.reason).toContain(`Pull request #${s.pull_request!.number}: its checks pass and no changes are requested.`);
      expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain(`## 3. Make the check \`lint\` pass (pull request #${s.pull_request!.number})`);
      // The feedback story ran in a lane of its own and came back onto the loop's branch, which was pushed again.
      expect(s.iterations.map((i: { story_id: string | null }) => i.story_id).sort()).toEqual(["1", "2", "3"]);
      const integrated = readEvents(repo).filter((e) => e.type === "Lane" && e.step === "integrated");
      expect(integrated.map((e) => e.story_id).sort()).toEqual(["1", "2", "3"]);
      expect(ci.seen.length).toBe(2);
      const tip = git(repo, "rev-parse", s.checkpoint_branch!);
      expect(ci.seen[1]).toBe(tip);
      expect(git(remote, "rev-parse", `refs/heads/${s.checkpoint_branch}`)).toBe(tip);
      expect(gh.pulls.size).toBe(1);
      // No lane is left behind: every lane worktree was removed.
      expect(git(repo, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    } finally {
      ci.stop();
    }
  }, 240_000);

  test("the pull request is merged while the loop watches: done, said, nothing more pushed", async () => {
    const { gh, repo, remote, env } = setUp();
    const ci = scriptedCi(gh, remote, () => [{ id: 1, name: "e2e", status: "in_progress", conclusion: null }]);
    const proc = spawnWtLoop(["start", "--on-complete", "pr", "--watch", "--terminal", "inline"], { cwd: repo, env });
    try {
      const out = collect(proc.stdout);
      const err = collect(proc.stderr);
      // The Watching line is said just before the state records the wait (engine/watch-round.ts): both are waited for.
      const watching = () => /Watching pull request #\d+: its checks e2e are running/.test(out.text()) && readState(repo).waiting !== null;
      await waitFor("the loop to watch its running check", watching, 120_000, { whileRunning: proc });
      const s0 = readState(repo);
      expect(s0.status).toBe("running");
      expect(s0.waiting).toMatchObject({ on: "pull_request" });
      const status = await wtLoop(["status"], { cwd: repo });
      expect(status.stdout).toMatch(/Waiting: until \d\d:\d\d .* for pull request #\d+'s checks e2e/);
      const pr = [...gh.pulls.values()][0]!;
      const patches = () => gh.requests.filter((q) => q.method === "PATCH").length;
      const patched = patches();
      Object.assign(pr, { state: "closed", merged: true });
      expect(await proc.exited).toBe(0);
      expect(await err.done).toBe("");
      const s = readState(repo);
      expect(s).toMatchObject({ status: "done", completion: "keep", waiting: null, runner_pid: null });
      expect(s.reason).toContain(`Pull request #${pr.number} was merged while the loop watched it`);
      expect(s.reason).not.toContain("No pull request was made");
      expect(patches()).toBe(patched); // not updated after the merge
      expect(ci.seen.length).toBe(1);
      expect(gh.pulls.size).toBe(1);
    } finally {
      ci.stop();
      proc.kill("SIGKILL");
    }
  }, 240_000);

  test("wt-loop stop while it watches: the wait ends at once, stopped, every story done and pushed", async () => {
    const { gh, repo, remote, env } = setUp();
    const ci = scriptedCi(gh, remote, () => [{ id: 1, name: "e2e", status: "in_progress", conclusion: null }]);
    const proc = spawnWtLoop(["start", "--on-complete", "pr", "--watch", "--terminal", "inline"], { cwd: repo, env });
    try {
      const out = collect(proc.stdout);
      await waitFor("the loop to watch its running check", () => /Watching pull request #\d+: its checks e2e are running/.test(out.text()), 120_000, {
        whileRunning: proc,
      });
      const stop = await wtLoop(["stop"], { cwd: repo });
      expect(stop.code).toBe(0);
      expect(await proc.exited).toBe(4);
      const s = readState(repo);
      expect(s).toMatchObject({ status: "stopped", completion: "keep", waiting: null, runner_pid: null, stories_completed: 2 });
      expect(s.reason).toContain(`Stopped by the user while watching pull request #${s.pull_request!.number}`);
      expect(git(remote, "rev-parse", `refs/heads/${s.checkpoint_branch}`)).toBe(git(repo, "rev-parse", s.checkpoint_branch!));
      expect(gh.pulls.size).toBe(1);
    } finally {
      ci.stop();
      proc.kill("SIGKILL");
    }
  }, 240_000);

  test("without --on-complete pr: refused, naming it, nothing written", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await wtLoop(["start", "--watch", "--on-complete", "keep", "--terminal", "inline"], { cwd: repo });
    expect(r.stderr).toContain("--watch watches the pull request the loop opens at its end: give --on-complete pr too (or --pr N), not --on-complete keep.");
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(1);
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });
});
