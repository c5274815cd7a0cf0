// The user's stash list is read again only when the files git keeps it in changed (src/checkpoint/refs.ts
// userStashes). "Changed" must not be judged by what a process can set back: an mtime is restored by
// `touch -r` (or `cp -p`, `rsync -a`, `tar x`), a file rewritten in place keeps its inode and, with an
// object id swapped for another, its size. The change time (ctime) is the one stamp no one sets.
import { expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { readRefs, refsViolation } from "../../src/checkpoint/refs.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

/** Rewrites `file` in place (same inode, same size) with `from` replaced by `to`, and sets its times back. */
function swapInPlace(file: string, from: string, to: string) {
  const times = join(tempDir("times-"), "ref");
  writeFileSync(times, "");
  expect(Bun.spawnSync(["touch", "-r", file, times]).exitCode).toBe(0);
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  const fd = openSync(file, "r+");
  writeSync(fd, text.replaceAll(from, to), 0);
  closeSync(fd);
  expect(Bun.spawnSync(["touch", "-r", times, file]).exitCode).toBe(0);
}

test("a stash entry swapped for another in place, with the files' times set back, is still seen as dropped", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  writeFileSync(join(repo, "a.txt"), "the user's work\n");
  git(repo, "stash", "push", "-q", "-m", "user one");
  const mine = git(repo, "rev-parse", "refs/stash");
  writeFileSync(join(repo, "a.txt"), "the agent's\n");
  const other = git(repo, "stash", "create", "agent");
  git(repo, "checkout", "-q", "--", "a.txt");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const head = git(repo, "rev-parse", "HEAD");
  const at = await readRefs(g); // the listing is remembered with the files' stamps
  expect([...at.stashes.keys()]).toEqual([mine]);

  for (const f of ["logs/refs/stash", "refs/stash"]) swapInPlace(join(repo, ".git", f), mine, other);
  expect(git(repo, "stash", "list", "--format=%H")).toBe(other); // git sees the user's entry gone

  const { violation } = await refsViolation(g, at, head);
  expect(violation).toContain("1 stash entry was dropped");
});

test("--parallel: another lane's branch deleted or moved while an agent works is not the agent's doing; any other branch still is", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  const head = git(repo, "rev-parse", "HEAD");
  // A lane being integrated has its HEAD detached (a rebase), so its branch shows as checked out nowhere.
  git(repo, "branch", "wt-loop/lane/repo-1234abcd/2-1");
  git(repo, "branch", "feature");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const at = await readRefs(g);
  git(repo, "branch", "-D", "wt-loop/lane/repo-1234abcd/2-1"); // the loop closed that lane
  expect((await refsViolation(g, at, head)).violation).toBeNull();
  git(repo, "branch", "-D", "feature");
  expect((await refsViolation(g, at, head)).violation).toContain("the branch feature was deleted");
});
