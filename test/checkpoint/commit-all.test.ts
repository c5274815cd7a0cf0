// commitAll returns the commit it made, read from the files git wrote (no git process): the same
// answer git gives, on a branch, in a linked worktree, on a detached HEAD and with packed refs.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const setups: [string, (repo: string) => string][] = [
  ["on a branch", (repo) => repo],
  ["on a branch whose ref is only packed", (repo) => (git(repo, "pack-refs", "--all"), repo)],
  ["on a detached HEAD", (repo) => (git(repo, "checkout", "-q", "--detach"), repo)],
  [
    "in a linked worktree, on its own branch",
    (repo) => {
      const wt = join(repo, "..", "linked");
      git(repo, "worktree", "add", "-q", "-b", "ralph/linked", wt);
      return wt;
    },
  ],
];

describe.each(setups)("commitAll %s", (_, setup) => {
  test("returns the new HEAD", async () => {
    const cwd = setup(makeRepo());
    writeFileSync(join(cwd, "new.txt"), "x\n");
    const sha = await new Git({ cwd }).commitAll("checkpoint: test");
    expect(sha).toBe(git(cwd, "rev-parse", "HEAD"));
    expect(git(cwd, "log", "-1", "--format=%s")).toBe("checkpoint: test");
  });
});
