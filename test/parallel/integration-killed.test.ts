/**
 * A kill -9 of the runner at each step of an integration: the restart's recoverIntegration leaves the
 * loop branch, the main tree and its index exactly as before the integration (or, once verified, after
 * it), nothing lost, and the lane is integrated again.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mergeQueue, recoverIntegration } from "../../src/parallel/merge-queue.ts";
import type { LanePlan } from "../../src/parallel/ports.ts";
import { killingGit } from "../helpers/killing-git.ts";
import { loopRepo } from "../helpers/lanes.ts";
import { git, tempDir, write } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const CHILD = join(import.meta.dir, "../helpers/integrate-child.ts");
const status = (repo: string) => git(repo, "status", "--porcelain", "--untracked-files=all");
const journal = (repo: string) =>
  git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")
    .split("\n")
    .filter((r) => /integrating-/.test(r));

/** A loop repo whose loop branch already moved past the lane's base, and the lane (committed) to integrate. */
async function setup() {
  const c = await loopRepo({ "a.txt": "a\n", "gone.txt": "to be deleted by the lane\n" });
  const p: LanePlan = c.lanes.plan("1", 1, c.head());
  await c.lanes.open(p);
  write(p.worktree, { "a.txt": "lane's a\n", "dir/new.txt": "lane's new file\n" });
  git(p.worktree, "rm", "-q", "gone.txt");
  await c.lanes.commit(p, "story 1");
  write(c.repo, { "other.txt": "integrated before\n" });
  git(c.repo, "add", "-A");
  git(c.repo, "commit", "-q", "-m", "another story");
  return { ...c, p, old: c.head() };
}

function runChild(repo: string, p: LanePlan, env: Record<string, string>, flag?: string) {
  return Bun.spawn(["bun", CHILD, repo, JSON.stringify(p), ...(flag ? [flag] : [])], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
}

/** The main worktree is exactly at `old`: branch, index and files. */
function expectAtOld(c: Awaited<ReturnType<typeof setup>>) {
  expect(c.head()).toBe(c.old);
  expect(status(c.repo)).toBe("");
  expect(git(c.repo, "write-tree")).toBe(git(c.repo, "rev-parse", `${c.old}^{tree}`));
  expect(readFileSync(join(c.repo, "a.txt"), "utf8")).toBe("a\n");
  expect(existsSync(join(c.repo, "dir"))).toBe(false);
  expect(readFileSync(join(c.repo, "gone.txt"), "utf8")).toBe("to be deleted by the lane\n");
  expect(journal(c.repo)).toEqual([]);
}

async function integratesAgain(c: Awaited<ReturnType<typeof setup>>) {
  const r = await mergeQueue(c.g, "ralph/x").integrate(c.p, null);
  expect(r.kind).toBe("integrated");
  expect(readFileSync(join(c.repo, "dir/new.txt"), "utf8")).toBe("lane's new file\n");
  expect(readFileSync(join(c.repo, "other.txt"), "utf8")).toBe("integrated before\n");
  expect(existsSync(join(c.repo, "gone.txt"))).toBe(false);
  expect(status(c.repo)).toBe("");
}

describe("an integration killed at any step is undone whole by the restart", () => {
  for (const [step, at, when] of [
    ["after the journal was written, before the branch moved", "update-ref --stdin", "after"],
    ["after the branch moved, before the tree did", "wt-loop: integrate story", "after"],
    ["after the tree moved, before verify", "read-tree -u -m", "after"],
  ] as const) {
    test(step, async () => {
      const c = await setup();
      const child = runChild(c.repo, c.p, killingGit(at, when));
      await child.exited;
      expect(child.signalCode).toBe("SIGKILL");
      expect(journal(c.repo)).toHaveLength(2); // the kill came while the journal said an integration was under way
      const r = await recoverIntegration(c.g, "ralph/x", c.old);
      expect(r.kind).toBe("undone");
      expectAtOld(c);
      expect(await recoverIntegration(c.g, "ralph/x", c.old)).toEqual({ kind: "none", head: c.old }); // idempotent
      await integratesAgain(c);
    }, 60_000);
  }

  test("killed during verify, with an index.lock left and a file the user edited meanwhile: undone, the edit kept in a ref", async () => {
    const c = await setup();
    const flag = join(tempDir(), "verifying");
    const child = runChild(c.repo, c.p, {}, flag);
    await waitFor("the child to run verify", () => existsSync(flag), 60_000);
    child.kill("SIGKILL");
    await child.exited;
    expect(c.head()).not.toBe(c.old);
    writeFileSync(join(c.repo, "dir/new.txt"), "the user's edit\n");
    writeFileSync(join(c.repo, ".git/index.lock"), "");
    const r = await recoverIntegration(c.g, "ralph/x", c.old);
    expect(r.kind).toBe("undone");
    if (r.kind !== "undone") return;
    const kept = /kept in (refs\/wt-loop\/\S+)/.exec(r.notes.join("\n"))?.[1];
    expect(kept).toBeTruthy();
    expect(git(c.repo, "show", `${kept}:dir/new.txt`)).toBe("the user's edit");
    expectAtOld(c);
    await integratesAgain(c);
  }, 60_000);

  // Issue 30.5: the recovery removed any index.lock, taking it for the killed runner's. A git of the user's (or of
  // their editor) working in the main worktree holds it rightly: it is left, and the restart says what to do.
  test("killed during verify, an index.lock held by a live git in the main worktree: left, named, undone once that git is gone", async () => {
    const c = await setup();
    const flag = join(tempDir(), "verifying");
    const child = runChild(c.repo, c.p, {}, flag);
    await waitFor("the child to run verify", () => existsSync(flag), 60_000);
    child.kill("SIGKILL");
    await child.exited;
    writeFileSync(join(c.repo, ".git/index.lock"), "");
    const user = Bun.spawn(["git", "hash-object", "--stdin"], { cwd: c.repo, stdin: "pipe", stdout: "ignore" }); // waits on its input
    try {
      await waitFor("the user's git to run", () => existsSync(`/proc/${user.pid}/cwd`), 30_000);
      const err = await recoverIntegration(c.g, "ralph/x", c.old).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toContain(`pid ${user.pid}`);
      expect(err?.message).toContain("index.lock");
      expect(existsSync(join(c.repo, ".git/index.lock"))).toBe(true);
    } finally {
      user.stdin.end();
      await user.exited;
    }
    expect((await recoverIntegration(c.g, "ralph/x", c.old)).kind).toBe("undone");
    expectAtOld(c);
  }, 60_000);

  test("killed after the integration was verified: the restart finds it finished, nothing undone", async () => {
    const c = await setup();
    const child = runChild(c.repo, c.p, {});
    expect(await child.exited).toBe(0);
    const head = c.head();
    expect(await recoverIntegration(c.g, "ralph/x", c.old)).toEqual({ kind: "finished", head });
    expect(readFileSync(join(c.repo, "dir/new.txt"), "utf8")).toBe("lane's new file\n");
    expect(status(c.repo)).toBe("");
  }, 60_000);

  test("killed after what verify wrote was committed, before the journal was cleared: undone whole, the report with it", async () => {
    const c = await setup();
    const child = runChild(c.repo, c.p, { ...killingGit("what --verify changed on an integrated tree", "after"), INTEGRATE_VERIFY_WRITES: "report.txt" });
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");
    expect(git(c.repo, "log", "-1", "--format=%s", "ralph/x")).toContain("what --verify changed"); // the branch had moved on
    expect(journal(c.repo)).toHaveLength(2);
    expect((await recoverIntegration(c.g, "ralph/x", c.old)).kind).toBe("undone");
    expectAtOld(c);
    expect(existsSync(join(c.repo, "report.txt"))).toBe(false);
    await integratesAgain(c);
  }, 60_000);

  test("verify that writes a report and passes: the report is committed on top of the lane's commits, the tree clean", async () => {
    const c = await setup();
    const child = runChild(c.repo, c.p, { INTEGRATE_VERIFY_WRITES: "report.txt" });
    expect(await child.exited).toBe(0);
    expect(git(c.repo, "show", "ralph/x:report.txt")).toBe("a report");
    expect(git(c.repo, "log", "-2", "--format=%s", "ralph/x").split("\n")).toEqual([
      "wt-loop: what --verify changed on the integrated tree of story 1",
      "story 1",
    ]);
    expect(status(c.repo)).toBe("");
    expect(journal(c.repo)).toEqual([]);
    expect((await recoverIntegration(c.g, "ralph/x", c.old)).kind).toBe("finished");
  }, 60_000);

  // The kill soak (seed 30, --parallel 2, rounds 9, 13, 14, 25 and 30): the user's `--assume-unchanged` mark on a
  // file of theirs was gone once the next start was done. The undo rebuilt the index from the tree (read-tree
  // without a merge), which drops every mark; so did the index update after verify wrote something.
  const pinned = (repo: string) =>
    git(repo, "ls-files", "-v")
      .split("\n")
      .filter((l) => /^[a-z] /.test(l));
  function pin(c: Awaited<ReturnType<typeof setup>>) {
    git(c.repo, "update-index", "--assume-unchanged", "other.txt");
    writeFileSync(join(c.repo, "other.txt"), "the user's local override\n");
  }
  const pinKept = (c: Awaited<ReturnType<typeof setup>>) => {
    expect(pinned(c.repo)).toEqual(["h other.txt"]);
    expect(readFileSync(join(c.repo, "other.txt"), "utf8")).toBe("the user's local override\n");
  };

  test("the user's --assume-unchanged mark survives a kill after the tree moved and the restart's undo (soak seed 30)", async () => {
    const c = await setup();
    pin(c);
    const child = runChild(c.repo, c.p, killingGit("read-tree -u -m", "after"));
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");
    expect((await recoverIntegration(c.g, "ralph/x", c.old)).kind).toBe("undone");
    pinKept(c);
    expect(c.head()).toBe(c.old);
    expect(readFileSync(join(c.repo, "gone.txt"), "utf8")).toBe("to be deleted by the lane\n");
  }, 60_000);

  test("the user's --assume-unchanged mark survives an integration whose verify wrote a report", async () => {
    const c = await setup();
    pin(c);
    const child = runChild(c.repo, c.p, { INTEGRATE_VERIFY_WRITES: "report.txt" });
    expect(await child.exited).toBe(0);
    expect(git(c.repo, "show", "ralph/x:report.txt")).toBe("a report");
    pinKept(c);
  }, 60_000);

  test("killed right after the replay in the lane: the main worktree was not touched, the lane integrates again", async () => {
    const c = await setup();
    const child = runChild(c.repo, c.p, killingGit("rebase --quiet", "after"));
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");
    expectAtOld(c);
    await integratesAgain(c);
  }, 60_000);
});
