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
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { readRefs } from "../../src/checkpoint/refs.ts";
import { listWorktrees } from "../../src/parallel/lane-git.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** A `git` on PATH that leaves a file in its folder after each read of every worktree (once git has ended). */
function countingGit(): { reads: () => number } {
  const real = Bun.which("git");
  if (!real) throw new Error("git is not on PATH");
  const dir = tempDir("wt-loop-half-added-");
  const script = `#!/bin/sh
case "$*" in
  *worktreepath*|*"worktree list"*) ${JSON.stringify(real)} "$@"; rc=$?; touch ${JSON.stringify(dir)}/read.$$; exit $rc ;;
esac
exec ${JSON.stringify(real)} "$@"
`;
  writeFileSync(join(dir, "git"), script);
  chmodSync(join(dir, "git"), 0o755);
  process.env.PATH = `${dir}:${PATH}`;
  return { reads: () => readdirSync(dir).filter((f) => f.startsWith("read.")).length };
}

/** The admin folder of a worktree `git worktree add` is making, as it is between creating `commondir` and writing it. */
function halfAdded(repo: string): { finish: () => void } {
  const admin = join(repo, ".git/worktrees/being-added");
  mkdirSync(admin, { recursive: true });
  writeFileSync(join(admin, "gitdir"), `${join(tempDir(), "being-added")}/.git\n`);
  writeFileSync(join(admin, "HEAD"), `${"0".repeat(40)}\n`);
  writeFileSync(join(admin, "commondir"), "");
  return { finish: () => writeFileSync(join(admin, "commondir"), "../..\n") };
}

test("git dies reading a worktree's admin folder while `git worktree add` writes it (what the reads below must ride out)", () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  halfAdded(repo);
  const r = Bun.spawnSync(["git", "for-each-ref", "--format=%(worktreepath)", "refs/heads"], { cwd: repo, stderr: "pipe" });
  expect([r.exitCode, r.stderr.toString()]).toEqual([128, expect.stringContaining("worktrees/being-added/commondir")]);
});

test("the refs read before an attempt wait out a worktree being added beside it, and see the branches as they are", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  git(repo, "branch", "other");
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
  expect([...at.heads.keys()].sort()).toEqual(["refs/heads/main", "refs/heads/other"]);
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
