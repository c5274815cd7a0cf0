// `wt-loop status`, `stop`, `pause`, `list` find their loop through `git worktree list` (fleet/git-worktrees.ts).
// Run while a loop of the repository adds a `--parallel` lane (or the user adds a worktree), that git may read the
// new worktree's admin folder half written and die "failed to read …/commondir": the command must wait it out,
// not say "Not inside a git worktree" (test/helpers/half-added-worktree.ts).
import { afterEach, expect, test } from "bun:test";
import { spawnSync } from "bun";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { NOT_IN_WORKTREE, UserError } from "../../src/errors.ts";
import { gitWorktrees } from "../../src/fleet/git-worktrees.ts";
import { countingGit, halfAdded, restorePath } from "../helpers/half-added-worktree.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

afterEach(restorePath);

test("the worktrees a command targets are read once a worktree being added is whole, not refused as 'not in a worktree'", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  const { reads } = countingGit();
  const folder = halfAdded(repo);
  const listed = gitWorktrees(repo);
  listed.catch(() => {}); // awaited below
  await waitFor("a read of every worktree while one is half added", () => reads() >= 1, 30_000);
  folder.finish();
  const wts = await listed;
  expect(wts.map((w) => w.path)).toHaveLength(2);
  expect(wts[0]).toEqual({ path: git(repo, "rev-parse", "--show-toplevel"), head: git(repo, "rev-parse", "HEAD"), branch: "main" });
}, 60_000);

// An add killed midway leaves the folder half written for good: after the (bounded) wait, the command names
// that folder and what removes it; "Not inside a git worktree" would be false (we are in one) and no help.
test("a worktree whose add was cut midway is named with its fix, not called 'not in a worktree'", async () => {
  const repo = makeRepo({ "a.txt": "a\n", "sub/b.txt": "b\n" });
  halfAdded(repo);
  const admin = join(realpathSync(repo), ".git/worktrees/being-added");
  // From a subfolder: git names the folder relative to the worktree's top, not to where it was run.
  const err = await gitWorktrees(join(repo, "sub"), 300).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  const message = (err as UserError).message;
  expect(message).not.toContain(NOT_IN_WORKTREE);
  expect(message).toContain(admin);
  expect(message).toContain(`rm -rf '${admin}'`);
  expect((err as UserError).exitCode).not.toBe(0);
  // The fix it names works: git reads every worktree again.
  spawnSync(["rm", "-rf", admin]);
  expect((await gitWorktrees(repo)).map((w) => w.path)).toEqual([git(repo, "rev-parse", "--show-toplevel")]);
}, 30_000);
