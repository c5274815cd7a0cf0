// The changed paths of an attempt, read from a real repository: what git status and git's trees
// say, composed when the agent committed and then left more in the tree.
import { expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { committedChanges, composeChanges, treeStatus } from "../../src/checkpoint/changed-files.ts";
import { Git } from "../../src/checkpoint/git.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const sorted = <T extends { path: string }>(xs: T[]) => [...xs].sort((a, b) => a.path.localeCompare(b.path));

test("the tree's changes since HEAD: untracked, modified, deleted, staged renames, spaces in names; added then removed is nothing", async () => {
  const repo = makeRepo({ "a.txt": "a\n", "b.txt": "b\n", "old name.txt": "o\n", "gone.txt": "g\n" });
  writeFileSync(join(repo, "a.txt"), "changed\n");
  writeFileSync(join(repo, "new file.txt"), "n\n");
  rmSync(join(repo, "gone.txt"));
  git(repo, "mv", "old name.txt", "new name.txt");
  writeFileSync(join(repo, "brief.txt"), "x\n");
  git(repo, "add", "brief.txt");
  rmSync(join(repo, "brief.txt")); // staged, then deleted: never there as far as HEAD knows
  const s = await treeStatus(new Git({ cwd: repo, timeoutMs: 10_000 }));
  expect(s.head).toBe(git(repo, "rev-parse", "HEAD"));
  expect(s.dirty).toBe(true);
  expect(sorted([...s.files].map(([path, status]) => ({ path, status })))).toEqual([
    { path: "a.txt", status: "modified" },
    { path: "gone.txt", status: "deleted" },
    { path: "new file.txt", status: "added" },
    { path: "new name.txt", status: "added" },
    { path: "old name.txt", status: "deleted" },
  ]);
});

test("a clean tree has no changes", async () => {
  const s = await treeStatus(new Git({ cwd: makeRepo(), timeoutMs: 10_000 }));
  expect([s.dirty, s.files.size]).toEqual([false, 0]);
});

test("committed, then changed in the tree: one list from the checkpoint to the tree", async () => {
  const repo = makeRepo({ "keep.txt": "k\n", "edit.txt": "e\n", "drop.txt": "d\n" });
  const g = new Git({ cwd: repo, timeoutMs: 10_000 });
  const checkpoint = git(repo, "rev-parse", "HEAD");
  writeFileSync(join(repo, "made.txt"), "m\n");
  writeFileSync(join(repo, "brief.txt"), "b\n");
  writeFileSync(join(repo, "edit.txt"), "e2\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "agent");
  rmSync(join(repo, "brief.txt")); // added by the commit, gone from the tree: no change at all
  rmSync(join(repo, "drop.txt"));
  writeFileSync(join(repo, "made.txt"), "m2\n"); // added, then modified: still added
  const head = git(repo, "rev-parse", "HEAD");
  const files = composeChanges(await committedChanges(g, checkpoint, head), (await treeStatus(g)).files);
  expect(sorted(files)).toEqual([
    { path: "drop.txt", status: "deleted" },
    { path: "edit.txt", status: "modified" },
    { path: "made.txt", status: "added" },
  ]);
});
