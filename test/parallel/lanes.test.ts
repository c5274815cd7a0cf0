import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gitLanes } from "../../src/parallel/lanes.ts";
import { loopRepo, worktrees } from "../helpers/lanes.ts";
import { git, write } from "../helpers/repo.ts";

const branches = (repo: string) => git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/").split("\n").filter(Boolean);

describe("lanes", () => {
  test("plan names the lane under the common git dir and the wt-loop/lane/<worktree>-<hash>/ branches", async () => {
    const { repo, lanes, head } = await loopRepo();
    const p = lanes.plan("2.1", 3, head());
    expect(p.worktree).toMatch(new RegExp(`^${repo}/\\.git/wt-loop/lanes/repo-[0-9a-f]{8}/2-1-3$`));
    expect(p.branch).toMatch(/^wt-loop\/lane\/repo-[0-9a-f]{8}\/2-1-3$/);
  });

  test("open makes a worktree at base without the user's untracked files; the loop's own files are ignored there", async () => {
    const { repo, lanes, head } = await loopRepo();
    write(repo, { "untracked.txt": "mine\n" });
    const p = lanes.plan("1", 1, head());
    await lanes.open(p);
    expect(git(p.worktree, "rev-parse", "HEAD")).toBe(head());
    expect(git(p.worktree, "symbolic-ref", "--short", "HEAD")).toBe(p.branch);
    expect(existsSync(join(p.worktree, "untracked.txt"))).toBe(false);
    write(p.worktree, { ".claude/loop-state.json": "{}", ".claude/logs/x.jsonl": "" });
    expect(git(p.worktree, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(readFileSync(join(repo, "untracked.txt"), "utf8")).toBe("mine\n");
  });

  test("open is idempotent after a half-made lane: folder left, branch left, registration without folder", async () => {
    const { repo, lanes, head } = await loopRepo();
    const p = lanes.plan("1", 1, head());
    // A kill after the folder was made, before git registered it.
    mkdirSync(p.worktree, { recursive: true });
    write(p.worktree, { "junk.txt": "half\n" });
    await lanes.open(p);
    expect(existsSync(join(p.worktree, "junk.txt"))).toBe(false);
    await lanes.open(p); // the lane exists whole: made again
    expect(git(p.worktree, "rev-parse", "HEAD")).toBe(head());
    // Registered, but its folder is gone.
    rmSync(p.worktree, { recursive: true, force: true });
    await lanes.open(p);
    expect(git(p.worktree, "rev-parse", "HEAD")).toBe(head());
    expect(worktrees(repo)).toBe(2);
  });

  test("commit makes one checkpoint commit over the agent's own commits, with new files but not ignored ones", async () => {
    const { lanes, head } = await loopRepo({ "README.md": "# t\n", ".gitignore": "*.log\n" });
    const p = lanes.plan("1", 1, head());
    await lanes.open(p);
    write(p.worktree, { "b.txt": "agent\n" });
    git(p.worktree, "add", "b.txt");
    git(p.worktree, "commit", "-q", "-m", "agent's own");
    write(p.worktree, { "c.txt": "new\n", "README.md": "# changed\n", "build.log": "ignored\n" });
    const tip = await lanes.commit(p, "story 1: checkpoint");
    expect(git(p.worktree, "log", "--format=%s", `${p.base}..${tip}`).split("\n")).toEqual(["story 1: checkpoint", "agent's own"]);
    expect(git(p.worktree, "ls-tree", "-r", "--name-only", tip).split("\n").sort()).toEqual([".gitignore", "README.md", "b.txt", "c.txt"]);
    expect(await lanes.commit(p, "again")).toBe(tip); // nothing left: no empty commit
  });

  test("close keeps work not integrated (committed and uncommitted) under the lane ref, removes worktree and branch", async () => {
    const { repo, lanes, head } = await loopRepo();
    const p = lanes.plan("1", 1, head());
    await lanes.open(p);
    write(p.worktree, { "b.txt": "committed\n" });
    const tip = await lanes.commit(p, "story 1");
    write(p.worktree, { "c.txt": "left uncommitted\n" });
    const kept = await lanes.close(p, { integrated: false });
    expect(kept).toMatch(/^refs\/wt-loop\/repo-[0-9a-f]{8}\/lane-1-1$/);
    expect(git(repo, "show", `${kept}:b.txt`)).toBe("committed");
    expect(git(repo, "show", `${kept}:c.txt`)).toBe("left uncommitted");
    expect(git(repo, "merge-base", "--is-ancestor", tip, kept!)).toBe("");
    expect(existsSync(p.worktree)).toBe(false);
    expect(worktrees(repo)).toBe(1);
    expect(branches(repo)).toEqual([]);
  });

  test("close of an integrated lane, or of one with no work, keeps nothing", async () => {
    const { repo, lanes, head } = await loopRepo();
    const p1 = lanes.plan("1", 1, head());
    await lanes.open(p1);
    write(p1.worktree, { "b.txt": "x\n" });
    await lanes.commit(p1, "s1");
    expect(await lanes.close(p1, { integrated: true })).toBe(null);
    const p2 = lanes.plan("2", 1, head());
    await lanes.open(p2);
    expect(await lanes.close(p2, { integrated: false })).toBe(null);
    expect(git(repo, "for-each-ref", "refs/wt-loop/")).toBe("");
    expect(worktrees(repo)).toBe(1);
  });

  test("sweep closes every lane of this loop git lists or the state records, keeps unintegrated work, leaves others' worktrees", async () => {
    const { repo, lanes, head } = await loopRepo();
    const other = join(repo, "..", "users-own");
    git(repo, "worktree", "add", "-q", "-b", "feature", other);
    const base = head();
    const done = lanes.plan("1", 1, base);
    const working = lanes.plan("2", 1, base);
    const half = lanes.plan("3", 1, base);
    await lanes.open(done);
    await lanes.open(working);
    write(done.worktree, { "d.txt": "integrated\n" });
    const doneTip = await lanes.commit(done, "s1");
    // Story 1 is on the loop branch already (as the merge queue puts it: a new commit of the same change).
    git(repo, "cherry-pick", doneTip);
    write(working.worktree, { "w.txt": "in progress\n" });
    mkdirSync(half.worktree, { recursive: true }); // killed inside `worktree add`
    const notes = await lanes.sweep([
      { ...half, story_title: "t", iteration: 1, status: "opening", agent_pid: null, agent_started: null, started: new Date().toISOString() },
    ]);
    expect(notes).toHaveLength(3);
    const kept = git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/").split("\n").filter(Boolean);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/lane-2-1$/);
    expect(git(repo, "show", `${kept[0]}:w.txt`)).toBe("in progress");
    expect(
      git(repo, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree "))
        .map((l) => l.slice(9)),
    ).toEqual([repo, other]);
    expect(branches(repo)).toEqual([]);
    expect(existsSync(join(repo, ".git/wt-loop/lanes"))).toBe(true);
    expect(existsSync(done.worktree.replace(/\/[^/]+$/, ""))).toBe(false);
    expect(await lanes.sweep([])).toEqual([]);
  });

  test("lanes opened and closed at the same time (from two Lanes of one repository) are all made whole and all removed", async () => {
    const { repo, g, lanes, head } = await loopRepo();
    const again = gitLanes(g, { commonDir: await g.commonDir(), loopBranch: "ralph/x" });
    const plans = ["1", "2", "3", "4", "5", "6"].map((id) => lanes.plan(id, 1, head()));
    await Promise.all(plans.map((p, i) => (i % 2 ? again : lanes).open(p)));
    for (const p of plans) expect(git(p.worktree, "symbolic-ref", "--short", "HEAD")).toBe(p.branch);
    expect(worktrees(repo)).toBe(7);
    await Promise.all(plans.map((p, i) => (i % 2 ? lanes : again).close(p, { integrated: true })));
    expect(worktrees(repo)).toBe(1);
    expect(branches(repo)).toEqual([]);
  });

  test("sweep of a lane a kill left mid-replay keeps the lane's own work, never the half-merged files", async () => {
    const { repo, lanes, head } = await loopRepo({ "a.txt": "1\n" });
    const p = lanes.plan("1", 1, head());
    await lanes.open(p);
    write(p.worktree, { "a.txt": "lane\n" });
    await lanes.commit(p, "s1");
    write(repo, { "a.txt": "loop\n" });
    git(repo, "commit", "-q", "-am", "integrated meanwhile");
    expect(Bun.spawnSync(["git", "rebase", "ralph/x"], { cwd: p.worktree, stdout: "ignore", stderr: "ignore" }).exitCode).not.toBe(0); // stopped on the conflict
    const notes = await lanes.sweep([]);
    expect(notes[0]).toContain("kept in");
    const kept = git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/");
    expect(git(repo, "show", `${kept}:a.txt`)).toBe("lane");
    expect(worktrees(repo)).toBe(1);
  });

  test("sweep of a state edited by hand to name the user's worktree and branch removes neither", async () => {
    const { repo, lanes, head } = await loopRepo();
    const other = join(repo, "..", "users-own");
    git(repo, "worktree", "add", "-q", "-b", "feature", other);
    write(other, { "mine.txt": "mine\n" });
    const forged = {
      story_id: "1",
      attempt: 1,
      base: head(),
      worktree: other,
      branch: "feature",
      story_title: "t",
      iteration: 1,
      status: "running" as const,
      agent_pid: null,
      agent_started: null,
      started: new Date().toISOString(),
    };
    await lanes.sweep([forged]);
    expect(readFileSync(join(other, "mine.txt"), "utf8")).toBe("mine\n");
    expect(git(repo, "rev-parse", "--verify", "-q", "refs/heads/feature")).toBe(head());
    expect(worktrees(repo)).toBe(2);
  });
});
