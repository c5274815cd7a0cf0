// A loop ends and asks what to do with its branch. When the repository has a remote and `gh` is installed, the
// question offers `pr` too (plain prompt and full screen): choosing it keeps the branch, pushes it and opens its
// pull request, as `wt-loop pr` does. The real `gh` against a scripted GitHub on 127.0.0.1, a bare repository as origin.
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { readState } from "../helpers/fixtures.ts";
import { startGitHubServer, type GitHubServer } from "../helpers/github-server.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { addBareOrigin, git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { agentEnv, exited, keep, shows, WT_LOOP } from "../helpers/screen-e2e.ts";
import { describeWithTmux, Tmux } from "../helpers/tmux.ts";

let tmux: Tmux;
afterEach(() => tmux?.kill());
const servers: GitHubServer[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

function setUp(opts: { remote: boolean }) {
  const gh = startGitHubServer();
  servers.push(gh);
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const remote = opts.remote ? addBareOrigin(repo) : "(no remote)";
  const { env } = agentEnv([COMPLETE(), COMPLETE()], { ...gh.env(), GH_REPO: `${gh.host}/acme/widgets` });
  return { gh, repo, remote, env };
}

function opened(gh: GitHubServer, repo: string, remote: string) {
  const s = readState(repo);
  expect(s).toMatchObject({ status: "done", completion: "keep" });
  expect(gh.pulls.size).toBe(1);
  const pr = [...gh.pulls.values()][0]!;
  expect(s.pull_request?.number).toBe(pr.number);
  expect(pr.head).toBe(s.checkpoint_branch);
  expect(pr.draft).toBe(false); // done: ready for review
  expect(s.reason).toContain(`opened pull request #${pr.number}`);
  expect(git(remote, "rev-parse", `refs/heads/${s.checkpoint_branch}`)).toBe(git(repo, "rev-parse", s.checkpoint_branch));
  expect(git(repo, "branch", "--show-current")).toBe(s.checkpoint_branch);
}

describeWithTmux("the end question offers a pull request", () => {
  test("plain: pr is the third choice; chosen, the branch is kept, pushed, and its pull request opened", async () => {
    tmux = new Tmux();
    const { gh, repo, remote, env } = setUp({ remote: true });
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} start --plain --terminal inline`));
    await shows(tmux, pane, "What should happen to the loop's branch?");
    await shows(tmux, pane, "○ pr");
    tmux.keys(pane, "Down");
    tmux.keys(pane, "Down");
    await shows(tmux, pane, "● pr (keep it, push it and open its pull request");
    tmux.keys(pane, "Enter");
    expect(await exited(tmux, pane)).toBe(0);
    opened(gh, repo, remote);
  }, 120_000);

  test("screen: p answers pr; without a remote the dialog has no pr and p does nothing", async () => {
    tmux = new Tmux();
    const { gh, repo, remote, env } = setUp({ remote: true });
    const pane = tmux.start(repo, env, keep(`${WT_LOOP} run --on-complete ask --max 9`));
    await shows(tmux, pane, "what should happen to the loop's branch?");
    await shows(tmux, pane, "open its pull request");
    tmux.keys(pane, "p");
    await shows(tmux, pane, /opened pull request #\d+/);
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    opened(gh, repo, remote);

    tmux.kill();
    tmux = new Tmux();
    const none = setUp({ remote: false });
    const bare = tmux.start(none.repo, none.env, keep(`${WT_LOOP} run --on-complete ask --max 9`));
    await shows(tmux, bare, "what should happen to the loop's branch?");
    expect(tmux.capture(bare)).not.toContain("open its pull request");
    tmux.keys(bare, "p");
    tmux.keys(bare, "Enter"); // the first choice, keep: had p answered, this Enter would be the result view's
    await shows(tmux, bare, /q leave/);
    tmux.keys(bare, "q");
    expect(await exited(tmux, bare)).toBe(0);
    expect(readState(none.repo)).toMatchObject({ completion: "keep", pull_request: null });
    expect(none.gh.pulls.size).toBe(0);
  }, 180_000);
});
