// worktreeStatus: the branch, HEAD and every changed path from one `git status` (the merge queue's checks), the
// same paths `git status --porcelain=v1` names, whatever kind of change: untracked, modified, renamed, unmerged.
import { expect, test } from "bun:test";
import { Git } from "../../src/checkpoint/git.ts";
import { git, makeRepo, write } from "../helpers/repo.ts";

const v1Paths = (repo: string) =>
  Bun.spawnSync(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], { cwd: repo }) // (not the helper: it trims the first " M")
    .stdout.toString()
    .split("\0")
    .filter(Boolean)
    .filter((e) => /^.. /.test(e)) // the source of a rename follows its entry without a status
    .map((e) => e.slice(3))
    .sort();

test("a clean worktree on a branch: its name and head, no path", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  expect(await new Git({ cwd: repo }).worktreeStatus()).toEqual({ branch: "main", head: git(repo, "rev-parse", "HEAD"), paths: [] });
});

test("every kind of change is named once, by its path (spaces and a rename's new name included)", async () => {
  const repo = makeRepo({ "a.txt": "a\n", "old name.txt": "moved\n", "c.txt": "c\n", "d.txt": "base\n" });
  git(repo, "switch", "-q", "-c", "side");
  write(repo, { "d.txt": "side\n" });
  git(repo, "commit", "-qam", "side");
  git(repo, "switch", "-q", "main");
  write(repo, { "d.txt": "main\n" });
  git(repo, "commit", "-qam", "main");
  Bun.spawnSync(["git", "merge", "-q", "side"], { cwd: repo, stderr: "ignore", stdout: "ignore" }); // d.txt unmerged
  git(repo, "mv", "old name.txt", "new name.txt");
  write(repo, { "a.txt": "changed\n", "new dir/untracked file.txt": "u\n" });
  git(repo, "rm", "-q", "c.txt");
  const st = await new Git({ cwd: repo }).worktreeStatus();
  expect(st.branch).toBe("main");
  expect([...st.paths].sort()).toEqual(v1Paths(repo));
  expect([...st.paths].sort()).toEqual(["a.txt", "c.txt", "d.txt", "new dir/untracked file.txt", "new name.txt"]);
});

test("a detached HEAD has no branch", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  git(repo, "checkout", "-q", "--detach");
  const st = await new Git({ cwd: repo }).worktreeStatus();
  expect(st.branch).toBeNull();
  expect(st.head).toBe(git(repo, "rev-parse", "HEAD"));
});
