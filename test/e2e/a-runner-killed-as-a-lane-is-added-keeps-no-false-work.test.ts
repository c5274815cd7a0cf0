// A lane is made in steps (src/parallel/lanes.ts addLane, open): its branch (`update-ref`), its worktree on it
// (`worktree add --no-checkout`), then its files (`reset --hard`). A kill -9 of the runner between any two, then a
// plain `start`: the half-made lane is swept, the stories are done, and nothing is kept as the lane's "work" —
// it never ran. Cut after the add, its folder held no files and no index yet, and the sweep kept a commit deleting
// every file under refs/wt-loop/…/lane-1-1, telling the user it was work not on the loop branch.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { collect, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { killingGit } from "../helpers/killing-git.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

const cuts = [
  { at: "wt-loop: lane opened", when: "after", what: "its branch made, its worktree not yet" },
  { at: "--no-checkout", when: "after", what: "its worktree added, its files not yet checked out" },
] as const;

for (const cut of cuts)
  test(`a runner killed as a lane is made (${cut.what}), then start: swept, done, nothing kept as the lane's work`, async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    const agent = laneAgent();
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const killed = spawnWtLoop(args, { cwd: repo, env: { ...agent.env, ...killingGit(cut.at, cut.when) }, stdout: "pipe", stderr: "pipe" });
    const out = collect(killed.stdout);
    expect([await killed.exited, out.text()]).toEqual([137, expect.any(String)]);
    // The cut left a lane's branch behind (and, after the add, its worktree).
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/")).not.toBe("");

    const r = await wtLoop(args, { cwd: repo, env: agent.env });
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("All 2 stories are complete")]);
    expect(existsSync(join(repo, "s1.txt")) && existsSync(join(repo, "s2.txt"))).toBe(true);
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/", "refs/wt-loop/")).toBe("");
    expect(`${r.stdout}${r.stderr}`).not.toContain("kept in");
  }, 120_000);
