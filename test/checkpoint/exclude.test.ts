import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { ensureExcluded } from "../../src/checkpoint/exclude.ts";
import { EXCLUDE_LINES, loopPaths } from "../../src/state/paths.ts";
import { git, makeRepo, tempDir, write } from "../helpers/repo.ts";

describe("info/exclude", () => {
  test("added once: a second call changes nothing; the user's lines are kept", async () => {
    const repo = makeRepo();
    const file = join(repo, ".git/info/exclude");
    writeFileSync(file, "*.secret"); // no trailing newline
    await ensureExcluded(new Git({ cwd: repo }));
    const once = readFileSync(file, "utf8");
    await ensureExcluded(new Git({ cwd: repo }));
    expect(readFileSync(file, "utf8")).toBe(once);
    expect(once.startsWith("*.secret\n")).toBe(true);
    for (const l of EXCLUDE_LINES) expect(once.split("\n").filter((x) => x === l)).toHaveLength(1);
  });

  test("the loop's files are ignored by git; other .claude files are not", async () => {
    const repo = makeRepo();
    await ensureExcluded(new Git({ cwd: repo }));
    write(repo, { ".claude/loop-state.json": "{}", ".claude/logs/iter-001.jsonl": "", ".claude/learnings.md": "", ".claude/settings.json": "{}" });
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("?? .claude/settings.json");
  });

  // The exclude lines are made from the names loopPaths uses: a file the loop gains is ignored with the rest.
  test("every file loopPaths names, and the lock in .claude, is ignored", async () => {
    const repo = makeRepo();
    await ensureExcluded(new Git({ cwd: repo }));
    const p = loopPaths(repo);
    const rel = (f: string) => relative(repo, f);
    write(repo, {
      [rel(p.state)]: "{}",
      [rel(`${p.state}.123.tmp`)]: "",
      [rel(p.events)]: "",
      [rel(join(p.logs, "run/iter-001.jsonl"))]: "",
      [rel(join(p.runs, "run.json"))]: "",
      [rel(join(p.requests, "1.json"))]: "",
      [rel(p.learnings)]: "",
      [rel(join(p.dir, "loop.lock"))]: "",
    });
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  test("a linked worktree writes the shared exclude file", async () => {
    const repo = makeRepo();
    const wt = join(tempDir(), "wt2");
    git(repo, "worktree", "add", "-q", "-b", "b2", wt);
    await ensureExcluded(new Git({ cwd: wt }));
    expect(readFileSync(join(repo, ".git/info/exclude"), "utf8")).toContain("/.claude/loop-state.json");
  });
});
