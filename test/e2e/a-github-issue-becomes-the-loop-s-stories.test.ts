// A user starts a loop from a GitHub issue (`--issue`, `--issues`): the real `gh` against a scripted GitHub on
// 127.0.0.1. The issue's task list becomes the stories in .wt-loop/issue-N/tasks.md, the loop runs them as it runs
// any tasks file, and the state and `status` name the issue. Every mistake (no gh, no login, no such issue, no
// network) is refused before anything is written, naming the fix.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeAgent, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer } from "../helpers/github-server.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const INLINE = ["--terminal", "inline", "--on-complete", "keep"];
const gh = startGitHubServer({
  issues: [
    { number: 7, title: "Add a login page", body: "We need a login page.\r\n\r\n- [ ] Route\r\n- [ ] Form\r\n- [ ] Tests (after 1)\r\n" },
    { number: 8, title: "Just prose", body: "Make it nicer." },
    { number: 9, title: "Old", body: "- [ ] x", state: "closed" },
    { number: 3, title: "Schema", body: "- [ ] table", labels: ["wt-loop"] },
    { number: 12, title: "API", body: "Goes after #3.", labels: ["wt-loop"] },
    { number: 20, title: "Unlabelled", body: "- [ ] y" },
    { number: 30, title: "A pull request", body: "", pull: true },
  ],
});
afterAll(() => gh.stop());

const env = (extra: Record<string, string> = {}) => ({ ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, ...extra });
const nothingWritten = (repo: string) => {
  expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  expect(existsSync(join(repo, ".wt-loop"))).toBe(false);
  expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
};

describe("start --issue", () => {
  test("an issue's three task-list items are three stories, run to done; the state and status name the issue", async () => {
    const repo = makeRepo();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const r = await wtLoop(["start", "--issue", `${gh.host}/acme/widgets#7`, ...INLINE], { cwd: repo, env: { ...gh.env(), ...agent.env } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tasks = readFileSync(join(repo, ".wt-loop/issue-7/tasks.md"), "utf8");
    expect(tasks).toContain("# Issue #7: Add a login page");
    expect(tasks).toContain("## 1. Route\n\n- [x] Route");
    expect(tasks).toContain("## 3. Tests (after 1)\n\n- [x] Tests (after 1)");
    const s = readState(repo);
    expect(s.status).toBe("done");
    expect(s.source).toBe("issue");
    expect(s.stories_completed).toBe(3);
    expect(s.github).toEqual({
      host: gh.host,
      repo: "acme/widgets",
      search: null,
      issues: [{ number: 7, title: "Add a login page", url: `https://${gh.host}/acme/widgets/issues/7` }],
    });
    // The agent was given the issue itself as the task.
    expect(readFileSync(join(agent.dir, "prompt-1.txt"), "utf8")).toContain("> We need a login page.");
    // The plan with its ticks is part of the work: it is on the loop's branch.
    expect(git(repo, "show", "HEAD:.wt-loop/issue-7/tasks.md")).toContain("- [x] Form");
    const status = await wtLoop(["status"], { cwd: repo, env: env() });
    expect(status.stdout).toMatch(new RegExp(`Issue: +#7 Add a login page \\(https://${gh.host}/acme/widgets/issues/7\\)`));
    // No token anywhere the loop wrote.
    for (const f of [".claude/loop-state.json", ".claude/loop-events.jsonl"]) expect(readFileSync(join(repo, f), "utf8")).not.toContain("test-token");
  });

  test("--dry-run shows the issue's stories and writes nothing", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--issue", "7", "--dry-run"], { cwd: repo, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Route");
    expect(r.stdout).toContain(".wt-loop/issue-7/tasks.md");
    nothingWritten(repo);
  });

  test("an issue without a task list is one story, and the user is told", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--issue", `https://${gh.host}/acme/widgets/issues/8`, "--dry-run"], { cwd: repo, env: gh.env() });
    expect(r.code).toBe(0);
    expect(r.stderr + r.stdout).toContain("Issue #8 has no task list (`- [ ]` items): the whole issue is one story.");
  });

  test("a restart keeps the ticks of the file an earlier run wrote", async () => {
    const repo = makeRepo();
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }, { promise: "FAILED: no" }], tempDir("fake-agent-"));
    const first = await wtLoop(["start", "--issue", "7", "--max", "2", "--max-retries", "1", ...INLINE], { cwd: repo, env: env(agent.env) });
    expect(first.code).toBe(2); // stuck on story 2
    const again = await wtLoop(["start", "--dry-run"], { cwd: repo, env: env() });
    expect(again.stdout + again.stderr).toContain("Using .wt-loop/issue-7/tasks.md from an earlier run, with its ticks");
    expect(readFileSync(join(repo, ".wt-loop/issue-7/tasks.md"), "utf8")).toContain("- [x] Route");
  });
});

describe("start --issues SEARCH", () => {
  test("one story per open issue found, `after #3` waits for #3", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--issues", "label:wt-loop", "--dry-run"], { cwd: repo, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/3\. Schema/);
    expect(r.stdout).toMatch(/12\. API/);
    expect(r.stdout).not.toContain("Unlabelled");
    const q = gh.requests.find((x) => x.path.startsWith("/search/issues"))!;
    expect(decodeURIComponent(q.path.replace(/\+/g, " "))).toContain("repo:acme/widgets is:issue is:open label:wt-loop");
  });
});

describe("refusals before anything is written", () => {
  const noGhPath = () => {
    // The fake agents, bun, and every program of /usr/bin but gh (/bin is /usr/bin on this machine).
    const bin = tempDir("no-gh-");
    for (const name of readdirSync("/usr/bin")) if (name !== "gh") symlinkSync(join("/usr/bin", name), join(bin, name));
    return [testPath().split(":")[0]!, dirname(process.execPath), bin].join(":");
  };
  test.each([
    ["no gh", () => ({ PATH: noGhPath() }), "7", /`gh` is not installed.*apt-get install gh/s],
    ["not logged in", () => ({ GH_TOKEN: "", GH_ENTERPRISE_TOKEN: "" }), "7", /not logged in to localhost:\d+.*gh auth login --hostname localhost:\d+/s],
    ["no such issue", () => ({}), "99", /Issue #99 was not found in localhost:\d+\/acme\/widgets/],
    ["a closed issue", () => ({}), "9", /Issue #9 of .* is closed\. Reopen it first/],
    ["a pull request", () => ({}), "30", /#30 of .* is a pull request, not an issue/],
    ["not an issue reference", () => ({}), "acme/widgets", /give an issue number \(123\), owner\/repo#123, or the issue's URL/],
    ["no network", () => ({ GH_HOST: "localhost:1", GH_REPO: "localhost:1/acme/widgets" }), "7", /Could not reach localhost:1 .*Check the network/s],
    ["no GitHub remote and no GH_REPO", () => ({ GH_REPO: "" }), "7", /no remote on a GitHub host .*owner\/repo#123/s],
  ])("%s: exit 1, the fix named, nothing written", async (_, extra, ref, message) => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--issue", ref, ...INLINE], { cwd: repo, env: env(extra()) });
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain("    at "); // no stack trace
    expect(r.code).toBe(1);
    nothingWritten(repo);
  });

  test("--issue with --change is refused", async () => {
    const repo = makeRepo();
    mkdirSync(join(repo, "openspec/changes/x"), { recursive: true });
    const r = await wtLoop(["start", "--issue", "7", "--change", "x", "--dry-run"], { cwd: repo, env: env() });
    expect(r.stderr).toContain("--change and --issue both name the work");
    expect(r.code).toBe(1);
  });
});
