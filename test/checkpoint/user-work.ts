/**
 * A repository holding every kind of user work a checkpoint must never lose, and a byte-for-byte
 * record of it: tracked edits, a partially staged file, a staged new file, untracked files (one in
 * an untracked folder), ignored files (one ignored only by an uncommitted .gitignore edit), an empty
 * folder, an `--assume-unchanged` local override, a user stash and a user branch.
 */
import { expect } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, testPath } from "../helpers/cli.ts";
import { ONE_STORY } from "../helpers/fixtures.ts";
import { git, makeRepo } from "../helpers/repo.ts";

/** Files the agent may write: never the user's. */
export const AGENT_FILE = "agent-owned.txt";

export function userWorkRepo(tasks = ONE_STORY, dir?: string): string {
  const repo =
    dir ?? makeRepo({ "tasks.md": tasks, "app.txt": "v1\n", "part.txt": "p1\n", "config.txt": "c1\n", ".gitignore": "*.log\n", [AGENT_FILE]: "a0\n" });
  git(repo, "branch", "feature");
  writeFileSync(join(repo, "stashed.txt"), "in the user's stash\n");
  git(repo, "stash", "push", "-q", "-u", "-m", "user's own stash");
  addUserWork(repo);
  return repo;
}

/** The uncommitted work (also used in a linked worktree). */
export function addUserWork(repo: string): void {
  writeFileSync(join(repo, "app.txt"), "v2 (uncommitted)\n");
  writeFileSync(join(repo, "part.txt"), "p2 staged\n");
  git(repo, "add", "part.txt");
  writeFileSync(join(repo, "part.txt"), "p3 unstaged on top\n");
  writeFileSync(join(repo, "staged.txt"), "staged new file\n");
  git(repo, "add", "staged.txt");
  writeFileSync(join(repo, "notes.txt"), "untracked notes\n");
  mkdirSync(join(repo, "drafts"), { recursive: true });
  writeFileSync(join(repo, "drafts/idea.md"), "untracked in an untracked folder\n");
  writeFileSync(join(repo, "debug.log"), "ignored\n");
  writeFileSync(join(repo, ".gitignore"), "*.log\n.env.local\n"); // uncommitted edit
  writeFileSync(join(repo, ".env.local"), "SECRET=only-ignored-by-the-uncommitted-edit\n");
  mkdirSync(join(repo, "empty-dir"), { recursive: true });
  writeFileSync(join(repo, "config.txt"), "c-local override\n");
  git(repo, "update-index", "--assume-unchanged", "config.txt");
}

const USER_FILES = ["app.txt", "part.txt", "staged.txt", "notes.txt", "drafts/idea.md", "debug.log", ".gitignore", ".env.local", "config.txt"];

export interface UserWork {
  files: Record<string, string>;
  index: string;
  assumeUnchanged: string;
  emptyDir: boolean;
  stashes: string[];
  branches: string;
}

const userStashes = (repo: string) =>
  git(repo, "stash", "list", "--format=%H %gs")
    .split("\n")
    .filter((l) => l && !l.includes("ralph:"));

export function record(repo: string): UserWork {
  return {
    files: Object.fromEntries(USER_FILES.map((f) => [f, readFileSync(join(repo, f), "utf8")])),
    index: git(repo, "ls-files", "-s"),
    assumeUnchanged: git(repo, "ls-files", "-v")
      .split("\n")
      .filter((l) => /^[a-z] /.test(l))
      .join("\n"),
    emptyDir: existsSync(join(repo, "empty-dir")) && statSync(join(repo, "empty-dir")).isDirectory() && readdirSync(join(repo, "empty-dir")).length === 0,
    stashes: userStashes(repo),
    branches: git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")
      .split("\n")
      .filter((l) => !l.startsWith("refs/heads/ralph/"))
      .join("\n"),
  };
}

/**
 * Everything in the tree byte for byte, no user branch or stash moved; with `staged`, the index
 * too (when the user is back on their own branch: stash mode, or after cleanup).
 */
export function expectIntact(repo: string, before: UserWork, opts: { staged?: boolean } = {}): void {
  const now = record(repo);
  expect(now.files).toEqual(before.files);
  expect(now.emptyDir).toBe(true);
  expect(now.stashes).toEqual(before.stashes);
  expect(now.branches).toEqual(before.branches);
  if (opts.staged !== false) {
    expect(now.index).toEqual(before.index);
    expect(now.assumeUnchanged).toEqual(before.assumeUnchanged);
  }
}

export const ralphStashes = (repo: string) =>
  git(repo, "stash", "list", "--format=%H %gs")
    .split("\n")
    .filter((l) => l.includes("ralph:"))
    .map((l) => l.split(" ")[0]!);

/** PATH with the git that hangs on `on` while `flag` exists (test/fixtures/git-hang). */
export function hangEnv(flag: string, on: string) {
  return { PATH: `${join(ROOT, "test/fixtures/git-hang")}:${testPath()}`, REAL_GIT: Bun.which("git")!, FAKE_GIT_HANG: flag, FAKE_GIT_HANG_ON: on };
}

export type Mode = "branch" | "stash";
/** The points of a loop where a harness git call can hang or the runner can be killed. */
export type Point = "checkpoint" | "revert" | "accept" | "cleanup";

/** The git subcommand each point's first changing step runs, per strategy. */
export const HANG_ON: Record<Point, Record<Mode, string>> = {
  checkpoint: { branch: "commit-tree", stash: "commit-tree" },
  revert: { branch: "checkout-index", stash: "checkout-index" },
  accept: { branch: "commit", stash: "drop" },
  cleanup: { branch: "update-ref", stash: "drop" },
};
