// Undoing a cut integration deletes, in the main worktree, the files the integration had added. An
// agent (or anyone) that replaced a folder on such a path by a link must not have the file of the same
// name deleted where the link points: nothing is deleted through a link.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { moveTree } from "../../src/parallel/recover.ts";
import { git, makeRepo, tempDir, write } from "../helpers/repo.ts";

describe("moveTree", () => {
  test("a folder replaced by a link: the file of the same name where it points is kept, and the note says why", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    const to = git(repo, "rev-parse", "HEAD");
    write(repo, { "dir/new.txt": "integrated\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "integrated");
    const from = git(repo, "rev-parse", "HEAD");
    const outside = tempDir("outside-");
    writeFileSync(join(outside, "new.txt"), "precious\n");
    rmSync(join(repo, "dir"), { recursive: true });
    symlinkSync(outside, join(repo, "dir"));
    git(repo, "reset", "-q", "--soft", to);
    const notes = await moveTree(new Git({ cwd: repo, timeoutMs: 30_000 }), from, to);
    expect(readFileSync(join(outside, "new.txt"), "utf8")).toBe("precious\n");
    expect(notes.join("\n")).toContain("dir is a symbolic link");
  });

  test("without links, the integration's files are deleted and their empty folders with them", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    const to = git(repo, "rev-parse", "HEAD");
    write(repo, { "dir/sub/new.txt": "integrated\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "integrated");
    const from = git(repo, "rev-parse", "HEAD");
    git(repo, "reset", "-q", "--soft", to);
    expect(await moveTree(new Git({ cwd: repo, timeoutMs: 30_000 }), from, to)).toEqual([]);
    expect(existsSync(join(repo, "dir"))).toBe(false);
  });

  // Issue 30.5: the deletion went through rmSync beside its own link check. A path the integration added that is a
  // folder now (someone made one there since) crashed the undo (EISDIR), and the next start with it.
  test("a path the integration added that is a folder now: kept with what is in it, the note says so, the rest undone", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    const to = git(repo, "rev-parse", "HEAD");
    write(repo, { "new.txt": "integrated\n", "b.txt": "integrated too\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "integrated");
    const from = git(repo, "rev-parse", "HEAD");
    rmSync(join(repo, "new.txt"));
    write(repo, { "new.txt/mine.md": "someone's folder\n" });
    git(repo, "reset", "-q", "--soft", to);
    const notes = await moveTree(new Git({ cwd: repo, timeoutMs: 30_000 }), from, to);
    expect(readFileSync(join(repo, "new.txt/mine.md"), "utf8")).toBe("someone's folder\n");
    expect(existsSync(join(repo, "b.txt"))).toBe(false);
    expect(notes.join("\n")).toContain("new.txt is a folder");
  });
});
