// Putting back what a killed auditor changed (checkpoint/held-after-kill.ts), with real git: the tree, the index and
// the branch go back to the hold; what the tree held is kept as a stash entry; HEAD elsewhere moves nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { putBackHeld } from "../../src/checkpoint/held-after-kill.ts";
import { holdTree } from "../../src/checkpoint/hold.ts";
import { git, makeRepo } from "../helpers/repo.ts";

async function held(repo: string) {
  const g = new Git({ cwd: repo, timeoutMs: 10_000 });
  return { g, at: (await holdTree(g, "HEAD", [], [])).at };
}

describe("putBackHeld", () => {
  test("files, the index and a commit made since the hold are put back; what the tree held is in the stash list", async () => {
    const repo = makeRepo({ "a.txt": "a\n", "keep.txt": "mine\n" });
    writeFileSync(join(repo, "keep.txt"), "mine, uncommitted\n"); // held as it is: not committed work is put back too
    const { g, at } = await held(repo);
    writeFileSync(join(repo, "a.txt"), "scribbled\n");
    git(repo, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "auditor");
    writeFileSync(join(repo, "new.txt"), "new\n");
    git(repo, "add", "new.txt");
    const note = await putBackHeld(g, at, "auditor");
    expect(note).toContain("put back what the auditor had changed (a.txt (modified), new.txt (added), main moved back from");
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("a\n");
    expect(readFileSync(join(repo, "keep.txt"), "utf8")).toBe("mine, uncommitted\n");
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    expect(git(repo, "log", "--format=%s", "main")).toBe("base");
    expect(git(repo, "status", "--porcelain")).toBe("M keep.txt");
    // Nothing is lost: the stash entry holds the tree as it was, the auditor's commit its parent.
    expect(git(repo, "stash", "list", "--format=%gs")).toBe("wt-loop: the tree as the killed auditor left it");
    expect(git(repo, "show", "stash@{0}:new.txt")).toBe("new");
    expect(git(repo, "log", "-1", "--format=%s", "stash@{0}^1")).toBe("auditor");
    // Idempotent: a second put back finds nothing to do.
    expect(await putBackHeld(g, at, "auditor")).toBeNull();
  });

  test("nothing changed: nothing done, no stash entry", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    const { g, at } = await held(repo);
    expect(await putBackHeld(g, at, "auditor")).toBeNull();
    expect(git(repo, "stash", "list")).toBe("");
  });

  test("HEAD on another branch since: nothing is moved, and the note says so", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    const { g, at } = await held(repo);
    git(repo, "checkout", "-qb", "elsewhere");
    writeFileSync(join(repo, "a.txt"), "the user's\n");
    expect(await putBackHeld(g, at, "auditor")).toBe(
      "The previous loop's runner was killed while its auditor ran, and HEAD is no longer on main: nothing it changed was put back.",
    );
    expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("the user's\n");
  });
});
