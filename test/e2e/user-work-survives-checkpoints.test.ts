// The user's uncommitted and untracked work, branches and ignored files survive every path, with
// branch and stash checkpoints, and the completion options put things where SPEC §5 says.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ONE_STORY } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

/** A repo with a modified tracked file, a staged new file and an untracked file. */
function dirtyRepo(tasks = ONE_STORY) {
  const repo = makeRepo({ "tasks.md": tasks, "app.txt": "v1\n" });
  writeFileSync(join(repo, "app.txt"), "v2 (uncommitted)\n");
  writeFileSync(join(repo, "staged.txt"), "staged\n");
  git(repo, "add", "staged.txt");
  writeFileSync(join(repo, "notes.txt"), "untracked notes\n");
  return repo;
}
const userWorkIntact = (repo: string) => {
  expect(readFileSync(join(repo, "app.txt"), "utf8")).toBe("v2 (uncommitted)\n");
  expect(readFileSync(join(repo, "staged.txt"), "utf8")).toBe("staged\n");
  expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("untracked notes\n");
};

describe("branch checkpoints", () => {
  test("the user's uncommitted work is committed as `initial state` and survives a failed attempt", async () => {
    const repo = dirtyRepo();
    const r = await runLoop(repo, [
      { promise: "FAILED: no", write: { [join(repo, "app.txt")]: "agent broke it\n" }, deleteFile: join(repo, "notes.txt") },
      COMPLETE(),
    ]);
    expect(r.code).toBe(0);
    userWorkIntact(repo);
    expect(git(repo, "show", "--name-only", "--format=%s", "main..HEAD~1")).toContain("initial state");
  });

  test("cleanup: back on the original branch with everything as uncommitted changes; the branch is gone", async () => {
    const repo = dirtyRepo();
    const base = git(repo, "rev-parse", "main");
    const r = await runLoop(repo, [COMPLETE({ write: { [join(repo, "new.txt")]: "new\n" } })], ["--on-complete", "cleanup"]);
    expect(r.code).toBe(0);
    expect(r.state.completion).toBe("cleanup");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "rev-parse", "main")).toBe(base);
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
    userWorkIntact(repo);
    expect(readFileSync(join(repo, "new.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 Do it");
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("staged.txt"); // what the user had staged, and only that
    expect(git(repo, "status", "--porcelain")).toContain("?? new.txt");
  });

  test("keep: stays on ralph/{name} with its checkpoint commits", async () => {
    const repo = dirtyRepo();
    const r = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep"]);
    expect(r.state.completion).toBe("keep");
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
    expect(git(repo, "log", "--format=%s", "-1")).toBe("checkpoint: story 1 — Only story");
  });

  test("a detached HEAD: the loop branches from it and cleanup returns to that commit", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const head = git(repo, "rev-parse", "HEAD");
    git(repo, "checkout", "-q", "--detach");
    const r = await runLoop(repo, [COMPLETE()], ["--on-complete", "cleanup"]);
    expect(r.code).toBe(0);
    expect(r.state.original_branch).toBeNull();
    expect(r.state.original_commit).toBe(head);
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(() => git(repo, "symbolic-ref", "-q", "HEAD")).toThrow();
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 Do it");
  });

  test("a repository with no commit yet: a clear error, nothing changed", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY }, { commit: false });
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(1); // refused in preflight, before anything is written
    expect(r.state).toBeNull();
    expect(r.stderr).toContain("no commit yet");
    expect(r.stderr).toContain("git commit --allow-empty");
    expect(r.calls()).toBe(0);
    expect(existsSync(join(repo, "tasks.md"))).toBe(true);
    expect(git(repo, "status", "--porcelain")).toContain("?? tasks.md");
  });

  test("restarting on an existing ralph/ branch continues it and keeps the original branch", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const first = await runLoop(repo, [COMPLETE()], ["--max", "1"]);
    expect(first.code).toBe(2);
    expect(git(repo, "branch", "--show-current")).toBe("ralph/repo");
    writeFileSync(join(repo, "between.txt"), "made between runs\n");
    const second = await runLoop(repo, [COMPLETE()], ["--on-complete", "cleanup"]);
    expect(second.code).toBe(0);
    expect(second.state.original_branch).toBe("main");
    expect(second.calls()).toBe(1); // only story 2 was left
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(readFileSync(join(repo, "between.txt"), "utf8")).toBe("made between runs\n");
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("- [ ]");
    // The first run's record was archived, not destroyed.
    expect(second.stdout).toContain(".claude/loop-runs/");
  });

  test("an existing ralph/ branch while on another branch: a clear error, the branch untouched", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    git(repo, "branch", "ralph/repo");
    const tip = git(repo, "rev-parse", "ralph/repo");
    writeFileSync(join(repo, "wip.txt"), "wip\n");
    git(repo, "config", "branch.ralph/repo.wtloop-original", "branch:main"); // made by an earlier loop
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(1);
    expect(r.state).toBeNull();
    expect(r.stderr).toContain("exists from an earlier loop");
    expect(r.stderr).not.toContain("branch -D"); // it holds work the tree does not: never advise deleting it
    expect(git(repo, "rev-parse", "ralph/repo")).toBe(tip);
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(readFileSync(join(repo, "wip.txt"), "utf8")).toBe("wip\n");
  });
});

describe("stash checkpoints", () => {
  test("a failed attempt is reverted to the stash: the user's work is back, the agent's gone; no branch, no commit", async () => {
    const repo = dirtyRepo();
    const head = git(repo, "rev-parse", "HEAD");
    const r = await runLoop(
      repo,
      [
        { promise: "FAILED: no", write: { [join(repo, "app.txt")]: "agent broke it\n", [join(repo, "junk.txt")]: "j" }, deleteFile: join(repo, "notes.txt") },
        COMPLETE(),
      ],
      ["--checkpoint", "stash", "--on-complete", "keep"],
    );
    expect(r.code).toBe(0);
    userWorkIntact(repo);
    expect(existsSync(join(repo, "junk.txt"))).toBe(false);
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 Do it");
    expect(r.state.checkpoint_branch).toBeNull();
  });

  test("each story gets its own stash; success drops it, so the previous story's work is never lost", async () => {
    const repo = dirtyRepo(TASKS_2_STORIES);
    const r = await runLoop(
      repo,
      [
        COMPLETE({ write: { [join(repo, "s1.txt")]: "1" } }),
        { promise: "FAILED: story 2 broke", write: { [join(repo, "s2-bad.txt")]: "x" } },
        COMPLETE({ write: { [join(repo, "s2.txt")]: "2" } }),
      ],
      ["--checkpoint", "stash", "--on-complete", "keep"],
    );
    expect(r.code).toBe(0);
    expect(readFileSync(join(repo, "s1.txt"), "utf8")).toBe("1");
    expect(readFileSync(join(repo, "s2.txt"), "utf8")).toBe("2");
    expect(existsSync(join(repo, "s2-bad.txt"))).toBe(false);
    userWorkIntact(repo);
    expect(git(repo, "stash", "list")).toBe("");
  });

  test("stuck with keep leaves the story's stash; cleanup drops this loop's stashes and only those (not an earlier loop's, not the user's)", async () => {
    const repo = dirtyRepo();
    git(repo, "stash", "push", "-q", "-m", "user's own stash", "--", "staged.txt");
    git(repo, "stash", "apply", "-q");
    const kept = await runLoop(repo, [{ promise: "FAILED: no" }], ["--checkpoint", "stash", "--max-retries", "1", "--on-complete", "keep"]);
    expect(kept.code).toBe(2);
    expect(kept.state.checkpoint_stashes).toHaveLength(1);
    const earlier = kept.state.checkpoint_stashes![0]!;
    expect(git(repo, "stash", "list", "--format=%H %gs")).toContain(`${earlier} On main: ralph:repo:1`);
    writeFileSync(join(repo, "between.txt"), "so the next checkpoint differs\n");
    const cleaned = await runLoop(repo, [{ promise: "FAILED: no" }], ["--checkpoint", "stash", "--max-retries", "1", "--on-complete", "cleanup"]);
    expect(cleaned.code).toBe(2);
    const mine = cleaned.state.checkpoint_stashes;
    expect(mine).toEqual([]);
    const list = git(repo, "stash", "list", "--format=%H %gs");
    expect(list.split("\n").filter((l) => l.includes("ralph:"))).toEqual([`${earlier} On main: ralph:repo:1`]);
    expect(list).toContain("user's own stash");
    userWorkIntact(repo);
  });
});

describe("a git operation in progress", () => {
  test("a merge with conflicts: start refuses, and the merge state and files are untouched", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY, "app.txt": "base\n" });
    git(repo, "checkout", "-q", "-b", "other");
    writeFileSync(join(repo, "app.txt"), "other\n");
    git(repo, "commit", "-qam", "other");
    git(repo, "checkout", "-q", "main");
    writeFileSync(join(repo, "app.txt"), "main\n");
    git(repo, "commit", "-qam", "main");
    expect(() => git(repo, "merge", "other")).toThrow();
    const conflicted = readFileSync(join(repo, "app.txt"), "utf8");
    const r = await runLoop(repo, [COMPLETE()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("A merge is in progress in this worktree");
    expect(r.calls()).toBe(0);
    expect(existsSync(join(repo, ".git/MERGE_HEAD"))).toBe(true);
    expect(readFileSync(join(repo, "app.txt"), "utf8")).toBe(conflicted);
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });
});
