// A story's stash entry reuses the index commit of the story before when the index and HEAD are the same (a git
// process less a story, docs/performance.md). That commit is unreachable once its entry is dropped: a `git gc
// --prune=now` in between deletes it, and the next entry must still be whole (`git stash apply --index` works).
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { stashCheckpoint } from "../../src/checkpoint/stash.ts";
import { git, makeRepo } from "../helpers/repo.ts";

async function twoStories(prune: boolean) {
  const repo = makeRepo({ "a.txt": "a\n", "b.txt": "b\n" });
  writeFileSync(join(repo, "b.txt"), "staged\n");
  git(repo, "add", "b.txt");
  writeFileSync(join(repo, "a.txt"), "the user's work\n");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const cp = stashCheckpoint(g, "x");
  await cp.init();
  await cp.ensure("1");
  const first = cp.info().stashes[0]!;
  writeFileSync(join(repo, "a.txt"), "story 1's work\n");
  await cp.accept("story 1", await cp.changes());
  expect(git(repo, "stash", "list")).toBe("");
  if (prune) git(repo, "-c", "gc.reflogExpireUnreachable=now", "gc", "-q", "--prune=now");
  await cp.ensure("2");
  const second = cp.info().stashes[0]!;
  return { repo, first, second };
}

test("the index commit of the story before is reused while the index and HEAD are unchanged", async () => {
  const { repo, first, second } = await twoStories(false);
  expect(second).not.toBe(first);
  expect(git(repo, "rev-parse", `${second}^2`)).toBe(git(repo, "rev-parse", `${first}^2`));
});

test("pruned by gc between two stories, the index commit is made again: the entry brings back the tree and the index", async () => {
  const { repo, second } = await twoStories(true);
  expect(git(repo, "cat-file", "-t", `${second}^2`)).toBe("commit");
  git(repo, "reset", "-q", "--hard");
  git(repo, "stash", "apply", "-q", "--index", second);
  expect(git(repo, "diff", "--cached", "--name-only")).toBe("b.txt");
  expect(git(repo, "show", ":b.txt")).toBe("staged");
  expect(git(repo, "diff", "--name-only")).toBe("a.txt");
  expect(git(repo, "show", `${second}:a.txt`)).toBe("story 1's work");
});

test("an index staged by the story before is the next entry's index: the index read again once its file changed", async () => {
  const repo = makeRepo({ "a.txt": "a\n", "b.txt": "b\n" });
  writeFileSync(join(repo, "a.txt"), "the user's work\n");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const cp = stashCheckpoint(g, "x");
  await cp.init();
  await cp.ensure("1");
  writeFileSync(join(repo, "b.txt"), "story 1 staged this\n");
  git(repo, "add", "b.txt"); // the agent's (or the user's) own staging is part of the tree the loop keeps
  await cp.accept("story 1", await cp.changes());
  await cp.ensure("2");
  const entry = cp.info().stashes[0]!;
  expect(git(repo, "show", `${entry}^2:b.txt`)).toBe("story 1 staged this");
  expect(git(repo, "show", `${entry}^2:a.txt`)).toBe("a");
});
