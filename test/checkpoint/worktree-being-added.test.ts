/**
 * `git worktree add` writes the new worktree's admin folder (`.git/worktrees/<name>/`) file by file: `commondir`
 * is created, then written. A git that reads every worktree in that moment (`for-each-ref` with
 * `%(worktreepath)`, `worktree list`) dies "failed to read …/worktrees/<name>/commondir". Under `--parallel` the
 * next lane is added while the first reads its refs (a loop of the e2e pause-while-lanes-run ended `stuck` so, in
 * CI, before either agent ran); another loop's lanes or the user's own `git worktree add` do it too.
 *
 * Here the admin folder is left as git has it in that moment (its `gitdir` and `HEAD` written, `commondir` empty);
 * a `git` on PATH counts the reads that look at every worktree, and the folder is made whole once one has run.
 */
import { afterEach, expect, test } from "bun:test";
import { Git } from "../../src/checkpoint/git.ts";
import { readRefs } from "../../src/checkpoint/refs.ts";
import { listWorktrees } from "../../src/parallel/lane-git.ts";
import { countingGit, halfAdded, restorePath } from "../helpers/half-added-worktree.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

afterEach(restorePath);

test("git dies reading a worktree's admin folder while `git worktree add` writes it (what the reads below must ride out)", () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  halfAdded(repo);
  const r = Bun.spawnSync(["git", "for-each-ref", "--format=%(worktreepath)", "refs/heads"], { cwd: repo, stderr: "pipe" });
  expect([r.exitCode, r.stderr.toString()]).toEqual([128, expect.stringContaining("worktrees/being-added/commondir")]);
});

test("the refs read before an attempt, asked of git (a branch alias: git's files are not read), wait out a worktree being added beside it", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  git(repo, "branch", "other");
  git(repo, "symbolic-ref", "refs/heads/trunk", "refs/heads/main"); // an alias: ref-files.ts leaves the branches to git
  const g = new Git({ cwd: repo, timeoutMs: 60_000 });
  await g.locate(); // the folders pinned, as the loop does before any attempt
  const { reads } = countingGit();
  const folder = halfAdded(repo);
  const read = readRefs(g);
  read.catch(() => {}); // awaited below
  await waitFor("a read of every worktree while one is half added", () => reads() >= 1, 30_000);
  folder.finish();
  const at = await read;
  expect(at.symbolic).toBe("refs/heads/main");
  expect([...at.heads.keys()].sort()).toEqual(["refs/heads/main", "refs/heads/other", "refs/heads/trunk"]);
  expect(at.head).toBe(git(repo, "rev-parse", "HEAD"));
}, 60_000);

test("the lanes' `worktree list` waits out a worktree being added by another process", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  const g = new Git({ cwd: repo, timeoutMs: 60_000 });
  await g.locate();
  const { reads } = countingGit();
  const folder = halfAdded(repo);
  const listed = listWorktrees(g);
  listed.catch(() => {}); // awaited below
  await waitFor("a read of every worktree while one is half added", () => reads() >= 1, 30_000);
  folder.finish();
  const paths = (await listed).map((w) => w.path);
  expect(paths[0]).toBe(git(repo, "rev-parse", "--show-toplevel"));
  expect(paths).toHaveLength(2);
}, 60_000);
