// A repository's workflow runs wt-loop's action (action.yml) on an `issues` event: the runner's steps played
// here as GitHub plays them (test/helpers/actions-runner.ts) — the release archive installed from a download
// folder with its checksum checked, the loop run on the event's issue with the real `gh` against a scripted
// GitHub, and the result handed back as the step's outputs and the job's summary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAction, type JobContext } from "../helpers/actions-runner.ts";
import { baseEnv, fakeAgent, ROOT } from "../helpers/cli.ts";
import { startGitHubServer } from "../helpers/github-server.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const archive = `wt-loop-${version}-linux-x64.tar.gz`;
const gh = startGitHubServer({
  issues: [{ number: 7, title: "Add a login page", body: "We need a login page.\n\n- [ ] Route\n- [ ] Form\n- [ ] Tests\n", labels: ["wt-loop"] }],
});
let release = "";

beforeAll(() => {
  // The release as `bun run release` makes it (its linux-x64 archive and SHA256SUMS), served from a folder.
  release = tempDir("release-");
  const r = Bun.spawnSync([process.execPath, join(ROOT, "scripts/release/main.ts"), "--only", "linux-x64", "--out", release], { cwd: ROOT, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`release failed: ${r.stderr}`);
}, 180_000);
afterAll(() => gh.stop());

function job(repo: string, extra: Partial<JobContext> = {}, env: Record<string, string> = {}): JobContext {
  return {
    actionPath: ROOT,
    workspace: repo,
    event: { action: "labeled", issue: { number: 7, title: "Add a login page" }, label: { name: "wt-loop" } },
    token: "test-token",
    with: { sandbox: "false", "download-url": `file://${release}`, ...extra.with },
    env: { ...baseEnv(), ...gh.env(), GH_REPO: `${gh.host}/acme/widgets`, ...env },
    ...extra,
  } as JobContext;
}

describe("the action on an issues event", () => {
  test("installs the release, runs the event's issue to done, opens its pull request, and hands back status, pr-url, receipt and summary", async () => {
    // The runner's checkout: a clone of the repository (here a bare one on disk) with no git identity.
    const seed = makeRepo();
    const remote = join(tempDir("remote-"), "origin.git");
    git(tempDir(), "clone", "-q", "--bare", seed, remote);
    const repo = join(tempDir("workspace-"), "widgets");
    git(tempDir(), "clone", "-q", remote, repo);
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE" }], tempDir("fake-agent-"));
    const home = tempDir("home-");
    const run = await runAction(job(repo, {}, { ...agent.env, HOME: home, GIT_CONFIG_GLOBAL: join(home, "none"), GIT_CONFIG_NOSYSTEM: "1" }));
    expect(run.failedStep).toBeNull();
    expect(run.code).toBe(0);
    // The binary on PATH for the later steps is the one the archive held.
    expect(run.path).toHaveLength(1);
    expect(run.log).toContain(`wt-loop ${version}`);
    expect(run.log).toContain("wt-loop run --plain --issue 7 --agent claude --max 30 --on-complete pr");
    expect(run.outputs.status).toBe("done");
    // One pull request, ready, closing the issue, its branch pushed to the remote.
    const pulls = [...gh.pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.draft).toBe(false);
    expect(pulls[0]!.body).toContain("Closes #7");
    expect(run.outputs["pr-url"]).toBe(`https://${gh.host}/acme/widgets/pull/${pulls[0]!.number}`);
    expect(git(remote, "rev-parse", `refs/heads/${pulls[0]!.head}`)).toBe(git(repo, "rev-parse", "HEAD"));
    const receipt = JSON.parse(run.outputs.receipt!);
    expect(receipt.stories).toHaveLength(3);
    expect(run.summary).toContain("## wt-loop: done");
    expect(run.summary).toContain(`Pull request: ${run.outputs["pr-url"]}`);
    expect(run.summary).toContain("Add a login page");
    // A runner's checkout has no git identity: the action gives the commits the Actions bot's.
    expect(git(repo, "log", "-1", "--format=%an <%ae>")).toBe("github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>");
    expect(run.summary + run.log).not.toContain("test-token");
  }, 180_000);

  test("a download that does not match SHA256SUMS installs nothing and fails the job naming it", async () => {
    const bad = tempDir("bad-release-");
    copyFileSync(join(release, "SHA256SUMS"), join(bad, "SHA256SUMS"));
    writeFileSync(join(bad, archive), "not the release");
    const repo = makeRepo();
    const run = await runAction(job(repo, { with: { "download-url": `file://${bad}` } }));
    expect(run.failedStep).toBe("Install wt-loop");
    expect(run.code).toBe(1);
    expect(run.log).toMatch(new RegExp(`::error title=wt-loop::The checksum of ${archive.replace(/\./g, "\\.")} is [0-9a-f]{64}, but SHA256SUMS says`));
    expect(run.path).toEqual([]);
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
  }, 60_000);

  test("a job with no issue, change or task fails before anything is written, saying what to give", async () => {
    const repo = makeRepo();
    const run = await runAction(job(repo, { event: { action: "workflow_dispatch" } }));
    expect(run.failedStep).toBe("Run the loop");
    expect(run.log).toContain("::error title=wt-loop::Nothing to work on: give the action an 'issue'");
    expect(run.outputs.status).toBe("");
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
  }, 60_000);
});
