// A checkpoint stash entry is known by its object id only: storing and dropping it is exact even
// when someone pushes a stash between wt-loop's look-up of stash@{N} and its drop.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { stashCommit, takeSnapshot } from "../../src/checkpoint/snapshot.ts";
import { dropStash, stashShas, storeStash } from "../../src/checkpoint/stash-ref.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { hangEnv } from "./user-work.ts";

const saved = { ...process.env };
afterEach(() => {
  // `process.env.X = undefined` would store the string "undefined" for every later test: delete instead.
  for (const k of Object.keys(hangEnv("", ""))) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  delete process.env.FAKE_GIT_BEFORE;
});

test("a user's push between the look-up and the drop: exactly the loop's entry goes, the user's stays", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  writeFileSync(join(repo, "a.txt"), "user 1\n");
  git(repo, "stash", "push", "-q", "-m", "user one");
  writeFileSync(join(repo, "a.txt"), "loop's checkpoint\n");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const ours = await stashCommit(g, await takeSnapshot(g, git(repo, "rev-parse", "HEAD")), "main", "ralph:x:1");
  await storeStash(g, ours, "On main: ralph:x:1");
  writeFileSync(join(repo, "a.txt"), "user 2\n");
  const two = git(repo, "stash", "create", "user two");
  const userBefore = (await stashShas(g)).filter((s) => s !== ours);

  // The race, made deterministic: the user's `git stash store` runs right before our `git stash drop`.
  const flag = join(tempDir("race-"), "flag");
  writeFileSync(flag, "");
  Object.assign(process.env, hangEnv(flag, "drop"), { FAKE_GIT_BEFORE: `git -C ${repo} stash store -m "On main: user two" ${two}` });
  expect(await dropStash(g, ours)).toBe(true);

  const after = await stashShas(g);
  expect(after).not.toContain(ours);
  expect(after).toEqual([two, ...userBefore]);
  expect(git(repo, "stash", "list", "--format=%gs")).toBe("On main: user two\nOn main: user one");
});

test("dropping an entry that is gone is a no-op, never another entry", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  writeFileSync(join(repo, "a.txt"), "user\n");
  git(repo, "stash", "push", "-q", "-m", "user");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  expect(await dropStash(g, "0".repeat(40))).toBe(false);
  expect(git(repo, "stash", "list", "--format=%gs")).toBe("On main: user");
});
