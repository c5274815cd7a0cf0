// `wt-loop status`, `stop`, `pause`, `list` find their loop through `git worktree list` (fleet/git-worktrees.ts).
// Run while a loop of the repository adds a `--parallel` lane (or the user adds a worktree), that git may read the
// new worktree's admin folder half written and die "failed to read …/commondir": the command must wait it out,
// not say "Not inside a git worktree" (test/helpers/half-added-worktree.ts).
import { afterEach, expect, test } from "bun:test";
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
