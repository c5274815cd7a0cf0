// The Files tab's diff: git's own text, never an external diff program, and never through a commondir
// planted after the worktree's folders were found.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diffText } from "../../src/screen/diff.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

describe("diffText", () => {
  test("shows git's own diff; a diff.external program is not run", async () => {
    const repo = makeRepo({ "a.txt": "one\n" });
    const mark = join(tempDir("mark-"), "ran");
    const tool = join(tempDir("tool-"), "difftool.sh");
    writeFileSync(tool, `#!/bin/sh\ntouch ${mark}\necho EXTERNAL\n`);
    chmodSync(tool, 0o755);
    git(repo, "config", "diff.external", tool);
    writeFileSync(join(repo, "a.txt"), "two\n");
    const text = await diffText(repo, "a.txt");
    expect(text).toContain("-one");
    expect(text).toContain("+two");
    expect(existsSync(mark)).toBe(false);
  });
});
