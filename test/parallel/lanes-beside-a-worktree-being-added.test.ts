/**
 * Lanes open and close while another process (another loop of the repository, the user) adds a worktree:
 * `git worktree add` and `git worktree remove` read every worktree first, and one whose admin folder is half
 * written (`commondir` empty, test/helpers/half-added-worktree.ts) makes them die "failed to read …/commondir".
 * A lane must open and close all the same (the folder is whole a moment later), and a removal that cannot be
 * made at all must keep the lane's work and say where it is.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countingGit, halfAdded, READS_EVERY_WORKTREE, restorePath } from "../helpers/half-added-worktree.ts";
import { loopRepo, worktrees } from "../helpers/lanes.ts";
import { git } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

afterEach(restorePath);

const branchOf = (repo: string, branch: string) => git(repo, "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`);

test("a lane closed while another process adds a worktree is removed once that add is whole, its work kept", async () => {
  const { repo, lanes, head } = await loopRepo();
  const p = lanes.plan("1", 1, head());
  await lanes.open(p);
  writeFileSync(join(p.worktree, "work.txt"), "the lane's work\n");
  await lanes.commit(p, "story 1");
  // The other add begins right after the close has listed the worktrees: `worktree remove` meets it.
  const { reads, finish } = countingGit(`*"worktree remove"*`, { repo, pattern: `*"worktree list"*` });
  const closed = lanes.close(p, { integrated: false });
  closed.catch(() => {}); // awaited below
  await waitFor("a `worktree remove` while another worktree is half added", () => reads() >= 1, 30_000);
  finish();
  const kept = await closed;
  expect(git(repo, "show", `${kept}:work.txt`)).toBe("the lane's work");
  expect(existsSync(p.worktree)).toBe(false);
  expect(branchOf(repo, p.branch)).toBe("");
  expect(worktrees(repo)).toBe(2); // the loop's and the one the other process added
}, 60_000);

test("a lane opened while another process adds worktrees one after another is made, once they are whole", async () => {
  const { repo, lanes, head } = await loopRepo();
  const { reads } = countingGit(`*"worktree add"*`);
  const other = halfAdded(repo);
  const p = lanes.plan("1", 1, head());
  let settled = false;
  const opened = lanes.open(p).finally(() => (settled = true));
  opened.catch(() => {}); // awaited below
  // Two of the lane's adds meet it (a loop opening its lanes adds one worktree after another), or the open gave up.
  await waitFor("two `worktree add` while another worktree is half added", () => reads() >= 2 || settled, 30_000);
  other.finish();
  await opened;
  expect(git(p.worktree, "symbolic-ref", "--short", "HEAD")).toBe(p.branch);
  expect(git(p.worktree, "rev-parse", "HEAD")).toBe(head());
  expect(worktrees(repo)).toBe(3);
}, 60_000);

test("a lane that cannot be removed (an add cut midway left its folder unreadable) keeps its work and says where", async () => {
  const { repo, g, lanes, head } = await loopRepo();
  const p = lanes.plan("1", 1, head());
  await lanes.open(p);
  writeFileSync(join(p.worktree, "work.txt"), "the lane's work\n");
  const tip = await lanes.commit(p, "story 1");
  halfAdded(repo); // never finished
  g.ctx.timeoutMs = 4_000; // the wait for it to be whole: bounded by the command timeout
  const err = await lanes.close(p, { integrated: false }).then(
    () => null,
    (e: Error) => e,
  );
  expectWorkKept(err, repo, p, tip);
}, 60_000);

test("a lane left by a killed runner that cannot be removed at the next start keeps its work and says where", async () => {
  const { repo, g, lanes, head } = await loopRepo();
  const p = lanes.plan("1", 1, head());
  await lanes.open(p);
  writeFileSync(join(p.worktree, "work.txt"), "the lane's work\n");
  const tip = await lanes.commit(p, "story 1");
  // The start finds the lane (its list of worktrees read), then an add begins that a kill cuts midway: never finished.
  countingGit(READS_EVERY_WORKTREE, { repo, pattern: `*"worktree list"*` });
  g.ctx.timeoutMs = 4_000;
  const err = await lanes.sweep([]).then(
    () => null,
    (e: Error) => e,
  );
  expectWorkKept(err, repo, p, tip);
}, 60_000);

/** The lane that could not be removed: the error names its folder, the unreadable one and its branch; its work is on the branch and under the kept ref it names. */
function expectWorkKept(err: Error | null, repo: string, p: { worktree: string; branch: string }, tip: string): void {
  expect(err?.message).toContain(p.worktree);
  expect(err?.message).toContain(join(repo, ".git/worktrees/being-added"));
  expect(err?.message).toContain(p.branch);
  expect(branchOf(repo, p.branch)).toBe(tip);
  const kept = git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/");
  expect(err?.message).toContain(kept);
  expect(git(repo, "show", `${kept}:work.txt`)).toBe("the lane's work");
}
