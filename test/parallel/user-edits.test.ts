// The user's edits in the main worktree while lanes run are committed on the loop branch as their own commit
// before a lane is replayed (src/parallel/user-edits.ts): never lost, never reverted, also when verify fails.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mergeQueue } from "../../src/parallel/merge-queue.ts";
import type { LanePlan } from "../../src/parallel/ports.ts";
import { USER_EDITS_SUBJECT } from "../../src/parallel/user-edits.ts";
import { loopRepo } from "../helpers/lanes.ts";
import { git, write } from "../helpers/repo.ts";

type Ctx = Awaited<ReturnType<typeof loopRepo>>;

async function laneWith(c: Ctx, id: string, files: Record<string, string>, base = c.head()): Promise<LanePlan> {
  const p = c.lanes.plan(id, 1, base);
  await c.lanes.open(p);
  write(p.worktree, files);
  await c.lanes.commit(p, `story ${id}: checkpoint`);
  return p;
}

const status = (repo: string) => git(repo, "status", "--porcelain", "--untracked-files=all");
const read = (c: Ctx, f: string) => readFileSync(join(c.repo, f), "utf8");

describe("your edits in the main worktree while lanes run", () => {
  test("a tracked edit, a staged one and a new file become one commit of yours; the lane is integrated on top", async () => {
    const c = await loopRepo({ "a.txt": "a\n", "s.txt": "s\n" });
    const before = c.head();
    const p = await laneWith(c, "1", { "b.txt": "from lane\n" });
    write(c.repo, { "a.txt": "user's edit\n", "s.txt": "staged\n", "mine.txt": "new\n" });
    git(c.repo, "add", "s.txt");
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, null);
    expect(r.kind).toBe("integrated");
    expect(git(c.repo, "log", "--format=%s", `${before}..ralph/x`).split("\n")).toEqual(["story 1: checkpoint", USER_EDITS_SUBJECT]);
    if (r.kind === "integrated") expect(r.commits).toHaveLength(1); // yours is not counted as the lane's
    for (const [f, t] of [
      ["a.txt", "user's edit\n"],
      ["s.txt", "staged\n"],
      ["mine.txt", "new\n"],
      ["b.txt", "from lane\n"],
    ]) {
      expect(read(c, f!)).toBe(t!);
      expect(git(c.repo, "show", `ralph/x:${f}`)).toBe(t!.trim());
    }
    expect(status(c.repo)).toBe("");
  });

  test("a failed verify undoes the lane only: the branch goes back to the commit holding your edit, not before", async () => {
    const c = await loopRepo({ "a.txt": "a\n" });
    const before = c.head();
    const p = await laneWith(c, "1", { "b.txt": "x\n" });
    write(c.repo, { "a.txt": "user's edit\n", "mine.txt": "new\n" });
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, async () => ({ ok: false, reason: "tests failed" }));
    expect(r.kind).toBe("verify_failed");
    expect(git(c.repo, "rev-parse", "ralph/x^")).toBe(before);
    expect(git(c.repo, "log", "-1", "--format=%s", "ralph/x")).toBe(USER_EDITS_SUBJECT);
    expect(read(c, "a.txt")).toBe("user's edit\n");
    expect(read(c, "mine.txt")).toBe("new\n");
    expect(status(c.repo)).toBe("");
    expect(git(c.repo, "for-each-ref", "refs/wt-loop/")).toBe("");
  });

  test("a lane that changes the file you edited is an ordinary conflict, your edit kept on the branch and in the tree", async () => {
    const c = await loopRepo({ "a.txt": "line 1\nline 2\n" });
    const p = await laneWith(c, "1", { "a.txt": "line 1\nLANE\n" });
    write(c.repo, { "a.txt": "line 1\nUSER\n" });
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, null);
    expect(r.kind).toBe("conflict");
    if (r.kind === "conflict") expect(r.paths).toEqual(["a.txt"]);
    expect(read(c, "a.txt")).toBe("line 1\nUSER\n");
    expect(git(c.repo, "show", "ralph/x:a.txt")).toBe("line 1\nUSER");
    expect(status(c.repo)).toBe("");
  });

  test("a kill between the branch move and the index (the index still the old head's) is finished by the next integration", async () => {
    const c = await loopRepo({ "a.txt": "a\n" });
    const p = await laneWith(c, "1", { "b.txt": "x\n" });
    write(c.repo, { "a.txt": "user's edit\n" });
    // What a cut fold leaves: the commit of the tree as it is, the branch moved to it, the real index untouched.
    const tree = git(c.repo, "stash", "create"); // W commit: its tree is the worktree's tracked files
    const commit = git(c.repo, "commit-tree", `${tree}^{tree}`, "-p", "HEAD", "-m", USER_EDITS_SUBJECT);
    git(c.repo, "update-ref", "refs/heads/ralph/x", commit);
    expect(status(c.repo)).not.toBe("");
    const r = await mergeQueue(c.g, "ralph/x").integrate(p, null);
    expect(r.kind).toBe("integrated");
    expect(git(c.repo, "rev-list", "--count", `${commit}..ralph/x`)).toBe("1"); // no second commit of yours
    expect(read(c, "a.txt")).toBe("user's edit\n");
    expect(status(c.repo)).toBe("");
  });
});
