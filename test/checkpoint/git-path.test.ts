// Git.gitPath asks for every `.git/<name>` a loop needs in one `rev-parse` (a start asked fourteen processes): each
// answer must be the one git gives for that name alone, in a main checkout and in a linked worktree (where some
// files are the worktree's own and some are shared), and the common folder the one `--git-common-dir` names.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const NAMES = [
  "index",
  "index.lock",
  "HEAD",
  "info/exclude",
  "MERGE_HEAD",
  "rebase-merge",
  "logs/refs/stash",
  "refs/stash",
  "packed-refs",
  "reftable",
  "refs/heads/main",
];

const setups: [string, (repo: string) => string][] = [
  ["a main checkout", (repo) => repo],
  [
    "a linked worktree",
    (repo) => {
      const wt = join(repo, "..", "linked-git-path");
      git(repo, "worktree", "add", "-q", "-b", "ralph/linked", wt);
      return wt;
    },
  ],
];

describe.each(setups)("gitPath in %s", (_, setup) => {
  test("every name, asked together or not, is where git says it is", async () => {
    const cwd = setup(makeRepo());
    const g = new Git({ cwd });
    // Asked at once (the first asks for all of them in one process), then again (remembered).
    const together = await Promise.all(NAMES.map((n) => g.gitPath(n)));
    const alone = NAMES.map((n) => resolve(cwd, git(cwd, "rev-parse", "--git-path", n)));
    expect(together).toEqual(alone);
    expect(await Promise.all(NAMES.map((n) => g.gitPath(n)))).toEqual(alone);
    expect(await g.commonDir()).toBe(resolve(cwd, git(cwd, "rev-parse", "--git-common-dir")));
  });
});
