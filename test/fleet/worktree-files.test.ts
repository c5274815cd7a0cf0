// `list` reads the repository's worktrees from git's files (src/worktree/worktree-files.ts) instead of starting
// `git worktree list`: the answer must be git's, entry for entry and in git's order, in every layout a user
// meets — and null (git is asked) wherever the files say something the reader is not sure of.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseWorktreeList } from "../../src/checkpoint/worktree-list.ts";
import { gitWorktrees, prefetchGitWorktrees } from "../../src/fleet/git-worktrees.ts";
import { readWorktreeFiles } from "../../src/worktree/worktree-files.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const gitsAnswer = (cwd: string) => parseWorktreeList(git(cwd, "worktree", "list", "--porcelain", "-z"));

function expectSame(cwd: string) {
  const files = readWorktreeFiles(cwd);
  expect(files).not.toBeNull();
  expect(files).toEqual(gitsAnswer(cwd));
}

test("one worktree, from its top and from a folder inside it: as git lists it", () => {
  const repo = makeRepo({ "src/a.ts": "x\n" });
  expectSame(repo);
  expectSame(join(repo, "src"));
});

test("linked worktrees on a branch, nested branch names, detached, a branch not born yet, locked, one whose folder is gone: as git lists them, in its order", () => {
  const repo = makeRepo();
  const out = tempDir();
  git(repo, "worktree", "add", "-q", "-b", "feature/a/b", join(out, "nested"));
  git(repo, "worktree", "add", "-q", "--detach", join(out, "detached"));
  git(repo, "worktree", "add", "-q", "-b", "unborn-base", join(out, "unborn"));
  git(join(out, "unborn"), "symbolic-ref", "HEAD", "refs/heads/not-born");
  git(repo, "worktree", "add", "-q", "-b", "locked", join(out, "locked"));
  git(repo, "worktree", "lock", join(out, "locked"));
  git(repo, "worktree", "add", "-q", "-b", "gone", join(out, "gone"));
  rmSync(join(out, "gone"), { recursive: true, force: true });
  // Enough names that the directory's order is not their creation's nor the alphabet's.
  for (const name of ["zeta", "alpha", "m-1", "b_2", "Q", "x.y", "longer-name-here", "n3", "é", "日本", "🎉", "\uff5e"])
    git(repo, "worktree", "add", "-q", "-b", `w-${name}`, join(out, name));
  expectSame(repo);
  expectSame(join(out, "nested")); // from a linked worktree
  expectSame(join(out, "detached"));
  git(repo, "commit", "-q", "--allow-empty", "-m", "moves main");
  expectSame(repo);
});

test("branches packed, and a loose file newer than its packed line: the loose one, as git", () => {
  const repo = makeRepo();
  const out = tempDir();
  git(repo, "worktree", "add", "-q", "-b", "side", join(out, "side"));
  git(repo, "pack-refs", "--all");
  expectSame(repo);
  git(join(out, "side"), "commit", "-q", "--allow-empty", "-m", "loose again");
  expectSame(repo);
});

test("what the reader is not sure of is left to git: discovery settings, a separate git directory, a worktree being added, a relative or odd gitdir, a symbolic branch", () => {
  const repo = makeRepo();
  expect(readWorktreeFiles(repo, { ...process.env, GIT_DIR: join(repo, ".git") })).toBeNull();

  git(repo, "config", "core.ignorecase", "true"); // git sorts the worktrees without case then
  expect(readWorktreeFiles(repo)).toBeNull();
  git(repo, "config", "--unset", "core.ignorecase");
  expectSame(repo);

  const separate = join(tempDir(), "work");
  git(tempDir(), "init", "-q", "-b", "main", "--separate-git-dir", join(tempDir(), "elsewhere.git"), separate);
  expect(readWorktreeFiles(separate)).toBeNull();

  const out = tempDir();
  git(repo, "worktree", "add", "-q", "-b", "half", join(out, "half"));
  const admin = join(repo, ".git", "worktrees", "half");
  rmSync(join(admin, "commondir"));
  expect(readWorktreeFiles(repo)).toBeNull();
  writeFileSync(join(admin, "commondir"), "../..\n");
  expectSame(repo);

  writeFileSync(join(admin, "gitdir"), "../../../half/.git\n");
  expect(readWorktreeFiles(repo)).toBeNull();
  writeFileSync(join(admin, "gitdir"), `${join(out, "half")}/.git\n`);
  expectSame(repo);

  writeFileSync(join(repo, ".git", "refs", "heads", "half"), "ref: refs/heads/main\n");
  expect(readWorktreeFiles(repo)).toBeNull();
});

test("settings git reads in any spelling (the key alone, on the section's line, a comment, quoted, from the environment): a repository made bare lists no main worktree, ignorecase sorts as git does", () => {
  const repo = makeRepo();
  const out = tempDir();
  for (const name of ["b", "A", "a", "B"]) git(repo, "worktree", "add", "-q", "-b", `w-${name}`, join(out, name));
  const config = readFileSync(join(repo, ".git", "config"), "utf8");
  const spellings = [
    "[core]\n\tignorecase\n",
    "[core] ignorecase = true\n",
    "[core]\n\tbare\n",
    "[core] bare = true\n",
    "[core]\n\tbare = true ; by hand\n",
    '[core]\n\tbare = "true"\n',
  ];
  for (const extra of spellings) {
    writeFileSync(join(repo, ".git", "config"), config + extra);
    const files = readWorktreeFiles(join(out, "a"));
    if (files !== null) expect({ extra, files }).toEqual({ extra, files: gitsAnswer(join(out, "a")) });
  }
  writeFileSync(join(repo, ".git", "config"), config);
  expectSame(join(out, "a"));
  const env = { ...process.env, GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.bare", GIT_CONFIG_VALUE_0: "true" };
  expect(readWorktreeFiles(join(out, "a"), env)).toBeNull();
});

test("an admin folder git skips (no gitdir file, or an empty one) is skipped the same", () => {
  const repo = makeRepo();
  mkdirSync(join(repo, ".git", "worktrees", "stray"), { recursive: true });
  expectSame(repo);
  writeFileSync(join(repo, ".git", "worktrees", "stray", "gitdir"), "");
  expectSame(repo);
});

test("list's prefetch takes the files' answer without starting git, and git's when the files give none", async () => {
  const repo = makeRepo();
  const fake = [{ path: "/from/files", head: "a".repeat(40), branch: "refs/heads/x", bare: false as const }];
  prefetchGitWorktrees(repo, () => fake);
  expect(await gitWorktrees(repo)).toEqual([{ path: "/from/files", head: "a".repeat(40), branch: "x" }]);
  prefetchGitWorktrees(repo, () => null);
  expect(await gitWorktrees(repo)).toEqual(gitsAnswer(repo).map((w) => ({ path: w.path, head: w.head, branch: "main" })));
});
