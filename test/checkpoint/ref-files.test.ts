// The branches read from git's files (src/checkpoint/ref-files.ts) must be what `git for-each-ref` lists, in
// every layout a loop meets: loose and packed refs, a loose file overriding its packed line, linked worktrees
// (this one or another holding a branch, detached, a worktree folder deleted), a bare main repository — and
// null (git is asked) wherever the files say something the reader is not sure of.
import { expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { readBranchFiles, type RefEntry } from "../../src/checkpoint/ref-files.ts";
import { forEachRef, readRefs, refsViolation } from "../../src/checkpoint/refs.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

const sorted = (xs: RefEntry[]) => [...xs].sort((a, b) => a.ref.localeCompare(b.ref));

/** The files' answer for the worktree at `cwd`, and git's. */
async function both(cwd: string): Promise<{ files: RefEntry[] | null; git: RefEntry[] }> {
  const g = new Git({ cwd, timeoutMs: 30_000 });
  const dirs = await g.locate();
  expect(dirs).not.toBeNull();
  return { files: readBranchFiles(dirs!), git: await forEachRef(g) };
}

async function expectSame(cwd: string): Promise<RefEntry[]> {
  const r = await both(cwd);
  expect(r.files).not.toBeNull();
  expect(sorted(r.files!)).toEqual(sorted(r.git));
  return r.git;
}

test("loose, packed, a loose file over its packed line, nested names and a detached HEAD: as git lists them", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  const first = git(repo, "rev-parse", "HEAD");
  for (const b of ["feature", "ralph/x", "deep/er/name", "wt-loop/lane/repo-1234abcd/2-1"]) git(repo, "branch", b);
  git(repo, "pack-refs", "--all"); // all packed, loose files pruned
  writeFileSync(join(repo, "a.txt"), "b\n");
  git(repo, "commit", "-qam", "two");
  git(repo, "branch", "-f", "feature", "HEAD"); // loose now, its packed line stale
  git(repo, "branch", "loose-only");
  const listed = await expectSame(repo);
  expect(listed.find((e) => e.ref === "refs/heads/feature")!.sha).not.toBe(first);
  expect(listed.find((e) => e.current)!.ref).toBe("refs/heads/main");
  git(repo, "checkout", "-q", "--detach");
  expect((await expectSame(repo)).some((e) => e.current)).toBe(false);
  // A branch being written (its lock file) is not listed, by git or the files.
  writeFileSync(join(repo, ".git/refs/heads/feature.lock"), `${first}\n`);
  await expectSame(repo);
});

test("linked worktrees: the branch another one holds is elsewhere, this one's is current, a deleted folder's still counts", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  git(repo, "branch", "one");
  git(repo, "branch", "two");
  git(repo, "branch", "three");
  const parent = tempDir("wts-");
  const one = join(parent, "one");
  const two = join(parent, "two");
  const gone = join(parent, "gone");
  git(repo, "worktree", "add", "-q", one, "one");
  git(repo, "worktree", "add", "-q", two, "two");
  git(repo, "worktree", "add", "-q", gone, "three");
  rmSync(gone, { recursive: true, force: true }); // prunable: git still lists its branch as checked out there
  git(repo, "worktree", "add", "-q", "--detach", join(parent, "detached"));
  for (const cwd of [repo, one, two]) await expectSame(cwd);
  const inOne = await expectSame(one);
  expect(
    inOne
      .filter((e) => e.elsewhere)
      .map((e) => e.ref)
      .sort(),
  ).toEqual(["refs/heads/main", "refs/heads/three", "refs/heads/two"]);
  expect(inOne.find((e) => e.current)!.ref).toBe("refs/heads/one");
  // A worktree folder of git's without its `gitdir` file is skipped by git: by the files too.
  rmSync(join(repo, ".git/worktrees/two/gitdir"));
  await expectSame(one);
});

test("a bare repository's worktree: the branch the bare HEAD names is elsewhere, as git says", async () => {
  const src = makeRepo({ "a.txt": "a\n" });
  const bare = join(tempDir("bare-"), "r.git");
  git(src, "clone", "-q", "--bare", src, bare);
  git(bare, "branch", "work");
  const wt = join(tempDir("bare-wt-"), "w");
  git(bare, "worktree", "add", "-q", wt, "work");
  const listed = await expectSame(wt);
  expect(listed.find((e) => e.ref === "refs/heads/main")!.elsewhere).toBe(true);
});

test("what the reader is not sure of makes it ask git: a symbolic ref, a name git refuses, a reftable", async () => {
  for (const spoil of [
    (r: string) => writeFileSync(join(r, ".git/refs/heads/sym"), "ref: refs/heads/main\n"),
    (r: string) => symlinkSync("main", join(r, ".git/refs/heads/link")),
    (r: string) => writeFileSync(join(r, ".git/refs/heads/bad..name"), `${git(r, "rev-parse", "HEAD")}\n`),
    (r: string) => writeFileSync(join(r, ".git/refs/heads/torn"), "0123\n"),
    (r: string) => mkdirSync(join(r, ".git/reftable")),
  ]) {
    const repo = makeRepo({ "a.txt": "a\n" });
    spoil(repo);
    expect((await both(repo)).files).toBeNull();
    const g = new Git({ cwd: repo, timeoutMs: 30_000 });
    expect((await readRefs(g)).symbolic).toBe("refs/heads/main"); // git answers instead
  }
});

test("a branch moved and one deleted while an agent worked are seen from the files, packed or loose", async () => {
  const repo = makeRepo({ "a.txt": "a\n" });
  git(repo, "branch", "packed");
  git(repo, "branch", "kept");
  git(repo, "pack-refs", "--all");
  const head = git(repo, "rev-parse", "HEAD");
  const g = new Git({ cwd: repo, timeoutMs: 30_000 });
  const at = await readRefs(g);
  writeFileSync(join(repo, "a.txt"), "b\n");
  git(repo, "commit", "-qam", "agent");
  const agent = git(repo, "rev-parse", "HEAD");
  git(repo, "reset", "-q", "--hard", head);
  git(repo, "branch", "-f", "packed", agent);
  git(repo, "branch", "-D", "kept");
  const { violation } = await refsViolation(g, at, head);
  expect(violation).toContain(`the branch packed was moved to ${agent.slice(0, 12)}`);
  expect(violation).toContain("the branch kept was deleted");
});
