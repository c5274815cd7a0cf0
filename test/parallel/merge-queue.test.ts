import { describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { HarnessError } from "../../src/errors.ts";
import { mergeQueue } from "../../src/parallel/merge-queue.ts";
import type { LanePlan } from "../../src/parallel/ports.ts";
import { loopRepo } from "../helpers/lanes.ts";
import { git, write } from "../helpers/repo.ts";

type Ctx = Awaited<ReturnType<typeof loopRepo>>;

/** A lane of story `id` from the loop branch's head, with `files` committed by the agent and then checkpointed. */
async function laneWith(c: Ctx, id: string, files: Record<string, string>, base = c.head()): Promise<LanePlan> {
  const p = c.lanes.plan(id, 1, base);
  await c.lanes.open(p);
  write(p.worktree, files);
  git(p.worktree, "add", "-A");
  git(p.worktree, "-c", "user.name=Agent", "-c", "user.email=agent@x", "commit", "-q", "-m", `agent: story ${id}`);
  write(p.worktree, { [`notes-${id}.md`]: "checkpointed\n" });
  await c.lanes.commit(p, `story ${id}: checkpoint`);
  return p;
}

const status = (repo: string) => git(repo, "status", "--porcelain", "--untracked-files=all");

describe("merge queue", () => {
  test("integrates a lane's commits onto the loop branch's head, authors and messages kept, main tree moved with it", async () => {
    const c = await loopRepo();
    const p = await laneWith(c, "1", { "b.txt": "from lane\n" });
    const before = c.head();
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, null);
    expect(r.kind).toBe("integrated");
    if (r.kind !== "integrated") return;
    expect(r.head).toBe(c.head());
    expect(r.commits).toHaveLength(2);
    expect(git(c.repo, "log", "--format=%an|%s", `${before}..ralph/x`).split("\n")).toEqual(["Test User|story 1: checkpoint", "Agent|agent: story 1"]);
    expect(readFileSync(join(c.repo, "b.txt"), "utf8")).toBe("from lane\n");
    expect(status(c.repo)).toBe("");
    expect(git(c.repo, "for-each-ref", "refs/wt-loop/")).toBe(""); // no journal left
  });

  test("two lanes from the same base that touch different files are both integrated, the second replayed on the first", async () => {
    const c = await loopRepo();
    const base = c.head();
    const l1 = await laneWith(c, "1", { "one.txt": "1\n" }, base);
    const l2 = await laneWith(c, "2", { "two.txt": "2\n" }, base);
    const q = mergeQueue(c.g, "ralph/x");
    const [r1, r2] = await Promise.all([q.integrate(l1, null), q.integrate(l2, null)]);
    expect([r1.kind, r2.kind]).toEqual(["integrated", "integrated"]);
    expect(git(c.repo, "ls-tree", "--name-only", "ralph/x").split("\n")).toEqual(expect.arrayContaining(["one.txt", "two.txt", "notes-1.md", "notes-2.md"]));
    expect(git(c.repo, "rev-list", "--count", `${base}..ralph/x`)).toBe("4");
    expect(status(c.repo)).toBe("");
  });

  test("a conflict changes nothing: branch, tree and lane as they were, the paths named, no conflict marker anywhere", async () => {
    const c = await loopRepo({ "a.txt": "line 1\nline 2\nline 3\n" });
    const base = c.head();
    const l1 = await laneWith(c, "1", { "a.txt": "line 1\nONE\nline 3\n" }, base);
    const l2 = await laneWith(c, "2", { "a.txt": "line 1\nTWO\nline 3\n" }, base);
    const q = mergeQueue(c.g, "ralph/x");
    expect((await q.integrate(l1, null)).kind).toBe("integrated");
    const head = c.head();
    const laneTip = git(l2.worktree, "rev-parse", "HEAD");
    const r = await q.integrate(l2, null);
    expect(r.kind).toBe("conflict");
    if (r.kind !== "conflict") return;
    expect(r.paths).toEqual(["a.txt"]);
    expect(r.reason).toContain("a.txt");
    expect(r.meanwhile).toBe(true); // lane 1 was integrated after lane 2 was made: the schedule's doing
    expect(c.head()).toBe(head);
    expect(status(c.repo)).toBe("");
    expect(readFileSync(join(c.repo, "a.txt"), "utf8")).toBe("line 1\nONE\nline 3\n");
    expect(git(l2.worktree, "rev-parse", "HEAD")).toBe(laneTip);
    expect(status(l2.worktree)).toBe("");
    // `git grep` exits 1 when it finds nothing: in no commit of the loop branch, nor in the lane's.
    for (const [dir, rev] of [
      [c.repo, "ralph/x"],
      [l2.worktree, "HEAD"],
    ] as const)
      expect(Bun.spawnSync(["git", "grep", "-q", "<<<<<<<", rev], { cwd: dir }).exitCode).toBe(1);
  });

  test("a failed verify puts branch and tree back exactly; verify saw the integrated tree", async () => {
    const c = await loopRepo();
    const before = c.head();
    const p = await laneWith(c, "1", { "b.txt": "x\n", "a.txt": "changed\n" });
    let seen = "";
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, async () => {
      seen = readFileSync(join(c.repo, "b.txt"), "utf8");
      return { ok: false, reason: "tests failed: 1 of 3" };
    });
    // Nothing was integrated since the lane was made: the failure is the lane's own, counted as an attempt.
    expect(r).toEqual({ kind: "verify_failed", reason: "tests failed: 1 of 3", meanwhile: false });
    expect(seen).toBe("x\n");
    expect(c.head()).toBe(before);
    expect(status(c.repo)).toBe("");
    expect(readFileSync(join(c.repo, "a.txt"), "utf8")).toBe("a\n");
    expect(git(c.repo, "for-each-ref", "refs/wt-loop/")).toBe("");
  });

  test("a verify that throws (a stop) is no verdict: everything is put back and the error goes on", async () => {
    const c = await loopRepo();
    const before = c.head();
    const p = await laneWith(c, "1", { "b.txt": "x\n" });
    const q = mergeQueue(c.g, "ralph/x");
    await expect(
      q.integrate(p, async () => {
        throw new Error("stopped");
      }),
    ).rejects.toThrow("stopped");
    expect(c.head()).toBe(before);
    expect(status(c.repo)).toBe("");
    expect((await q.integrate(p, null)).kind).toBe("integrated"); // the queue goes on after a failure
  });

  test("integrations run one at a time: no verify overlaps another", async () => {
    const c = await loopRepo();
    const base = c.head();
    const lanes = await Promise.all(["1", "2", "3"].map((id) => laneWith(c, id, { [`${id}.txt`]: id }, base)));
    const q = mergeQueue(c.g, "ralph/x");
    let running = 0;
    let most = 0;
    const verify = async () => {
      most = Math.max(most, ++running);
      await Bun.sleep(50); // a verify that takes time: another integration would start meanwhile if the queue let it
      running--;
      return { ok: true } as const;
    };
    const rs = await Promise.all(lanes.map((l) => q.integrate(l, verify)));
    expect(rs.map((r) => r.kind)).toEqual(["integrated", "integrated", "integrated"]);
    expect(most).toBe(1);
  });

  test("a lane whose folder is no worktree any more is refused, and nothing of the main repository is touched", async () => {
    const c = await loopRepo();
    const before = c.head();
    const p = await laneWith(c, "1", { "b.txt": "x\n" });
    rmSync(join(p.worktree, ".git")); // git would now find the main repository around the lane folder
    const err = await mergeQueue(c.g, "ralph/x")
      .integrate(p, null)
      .catch((e) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect(err.message).toContain("not a worktree any more");
    expect(c.head()).toBe(before);
    expect(git(c.repo, "symbolic-ref", "--short", "HEAD")).toBe("ralph/x");
    expect(status(c.repo)).toBe("");
  });
});
