// restoreSnapshot puts back exactly a snapshot, whatever an agent did to the tree in between:
// table-driven over the shapes a tree can take (real git repositories, no mocks).
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { restoreSnapshot, takeSnapshot } from "../../src/checkpoint/snapshot.ts";
import { git, makeRepo } from "../helpers/repo.ts";

type Mess = (repo: string) => void;
const CASES: [string, Mess, (repo: string) => void][] = [
  [
    "a file replaced by a folder",
    (r) => {
      rmSync(join(r, "a.txt"));
      mkdirSync(join(r, "a.txt"));
      writeFileSync(join(r, "a.txt/inner"), "x");
    },
    (r) => expect(readFileSync(join(r, "a.txt"), "utf8")).toBe("a\n"),
  ],
  [
    "a folder replaced by a file",
    (r) => {
      rmSync(join(r, "dir"), { recursive: true });
      writeFileSync(join(r, "dir"), "x");
    },
    (r) => expect(readFileSync(join(r, "dir/b.txt"), "utf8")).toBe("b\n"),
  ],
  ["an executable bit dropped", (r) => chmodSync(join(r, "run.sh"), 0o644), (r) => expect(statSync(join(r, "run.sh")).mode & 0o111).not.toBe(0)],
  [
    "a symlink retargeted",
    (r) => {
      rmSync(join(r, "link"));
      symlinkSync("dir", join(r, "link"));
    },
    (r) => expect(readlinkSync(join(r, "link"))).toBe("a.txt"),
  ],
  ["an untracked file of the user's deleted", (r) => rmSync(join(r, "mine.txt")), (r) => expect(readFileSync(join(r, "mine.txt"), "utf8")).toBe("mine\n")],
  [
    "new files in new and existing folders",
    (r) => {
      mkdirSync(join(r, "new/deep"), { recursive: true });
      writeFileSync(join(r, "new/deep/x"), "x");
      writeFileSync(join(r, "dir/y"), "y");
    },
    (r) => {
      expect(existsSync(join(r, "new/deep/x"))).toBe(false);
      expect(existsSync(join(r, "dir/y"))).toBe(false);
    },
  ],
];

describe("restoreSnapshot", () => {
  test.each(CASES)("%s: the tree and index are the snapshot's again; ignored files and empty folders untouched", async (_name, mess, check) => {
    const repo = makeRepo({ "a.txt": "a\n", "dir/b.txt": "b\n", "run.sh": "#!/bin/sh\n", ".gitignore": "*.log\n" });
    chmodSync(join(repo, "run.sh"), 0o755);
    symlinkSync("a.txt", join(repo, "link"));
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "more");
    writeFileSync(join(repo, "mine.txt"), "mine\n");
    writeFileSync(join(repo, "keep.log"), "ignored\n");
    mkdirSync(join(repo, "empty"));
    const g = new Git({ cwd: repo, timeoutMs: 30_000 });
    const snap = await takeSnapshot(g, git(repo, "rev-parse", "HEAD"));
    const index = git(repo, "ls-files", "-s");
    mess(repo);
    git(repo, "add", "-A");
    await restoreSnapshot(g, snap, []);
    check(repo);
    expect(git(repo, "ls-files", "-s")).toBe(index);
    expect(git(repo, "status", "--porcelain")).toBe("?? mine.txt");
    expect(readFileSync(join(repo, "keep.log"), "utf8")).toBe("ignored\n");
    expect(lstatSync(join(repo, "empty")).isDirectory()).toBe(true);
  });
});

// Racy git: a file rewritten with the same size in the same second as the index recorded it keeps
// the stat data the index has. Git compares such "racily clean" entries by content only while they
// are not older than the index file: a private copy of the index made a second later must keep the
// index's mtime, or the edit is invisible to the snapshot and the revert (a ticked box stayed).
const nextSecond = async () => Bun.sleep(1000 - (Date.now() % 1000) + 20);

describe("a same-size edit in the same second as the index recorded the file", () => {
  test("is seen by a snapshot taken a second later, and undone by the revert", async () => {
    const repo = makeRepo({ "x.txt": "x\n" });
    await nextSecond();
    writeFileSync(join(repo, "tasks.md"), "- [ ] 1.1 a\n");
    git(repo, "add", "-A"); // the index records tasks.md's stat data, this second
    const g = new Git({ cwd: repo, timeoutMs: 30_000 });
    const snap = await takeSnapshot(g, git(repo, "rev-parse", "HEAD"));
    writeFileSync(join(repo, "tasks.md"), "- [x] 1.1 a\n"); // same size, same second
    await nextSecond();
    const after = await takeSnapshot(g, git(repo, "rev-parse", "HEAD"));
    expect(after.full).not.toBe(snap.full);
    await restoreSnapshot(g, snap, []);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toBe("- [ ] 1.1 a\n");
  });
});
