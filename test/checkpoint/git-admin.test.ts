// The files that say where a worktree's repository is (`commondir`, a linked worktree's `.git`): one that
// already points elsewhere when wt-loop starts is refused, naming it; one changed after start is put back.
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { recordLocators, repairLocators } from "../../src/checkpoint/git-admin.ts";
import { UserError } from "../../src/errors.ts";
import { halfAdded } from "../helpers/half-added-worktree.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

/** A copy of `repo`'s repository whose config runs `touch mark` as core.fsmonitor. */
function evilCopy(repo: string, mark: string): string {
  const copy = join(tempDir("evil-"), "copy.git");
  cpSync(join(repo, ".git"), copy, { recursive: true });
  git(repo, "--git-dir", copy, "config", "core.fsmonitor", `touch ${mark} #`);
  return copy;
}

describe("git-admin", () => {
  test("a main worktree whose .git/commondir points at another repository is refused before any git runs there", async () => {
    const repo = makeRepo();
    const mark = join(tempDir("mark-"), "ran");
    writeFileSync(join(repo, ".git/commondir"), evilCopy(repo, mark));
    const err = await new Git({ cwd: repo, timeoutMs: 30_000 }).isDirty().catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(join(repo, ".git/commondir"));
    expect(err.message).toContain("git worktree repair");
    expect(existsSync(mark)).toBe(false);
  });

  test("a sibling's commondir rewritten after start is put back, and a new worktree's own files are left alone", async () => {
    const repo = makeRepo();
    const sibling = join(tempDir("sib-"), "sibling");
    git(repo, "worktree", "add", "-q", "-b", "s", sibling);
    const g = new Git({ cwd: repo, timeoutMs: 30_000 });
    await g.head();
    recordLocators(await g.commonDir());
    const later = join(tempDir("later-"), "later");
    git(repo, "worktree", "add", "-q", "-b", "l", later); // made after start: what git wrote stays
    const mark = join(tempDir("mark-"), "ran");
    writeFileSync(join(repo, ".git/worktrees/sibling/commondir"), evilCopy(repo, mark));
    const said = repairLocators(await g.commonDir());
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("worktrees/sibling/commondir");
    expect(readFileSync(join(repo, ".git/worktrees/sibling/commondir"), "utf8").trim()).toBe("../..");
    expect(git(sibling, "status", "--porcelain")).toBe("");
    expect(existsSync(mark)).toBe(false);
    expect(repairLocators(await g.commonDir())).toEqual([]);
  });

  for (const name of ["a new name", "a name seen at start (a lane closed since)"])
    test(`a worktree another lane or process is adding is not taken for damage, under ${name}`, async () => {
      const repo = makeRepo();
      const earlier = join(tempDir("earlier-"), "being-added");
      if (name !== "a new name") git(repo, "worktree", "add", "-q", "-b", "e", earlier);
      const g = new Git({ cwd: repo, timeoutMs: 30_000 });
      await g.head();
      recordLocators(await g.commonDir());
      if (name !== "a new name") git(repo, "worktree", "remove", earlier);
      const add = halfAdded(repo); // as git has it between creating commondir and writing it
      expect(repairLocators(await g.commonDir())).toEqual([]);
      expect(readFileSync(join(repo, ".git/worktrees/being-added/commondir"), "utf8")).toBe(""); // not written under git's feet
      add.finish();
      expect(repairLocators(await g.commonDir())).toEqual([]);
    });

  for (const when of ["created, not yet written", "not yet created"])
    test(`a worktree being added as the loop starts (its commondir ${when}) is not put back to that half-written state`, async () => {
      const repo = makeRepo();
      const add = halfAdded(repo);
      const commondir = join(repo, ".git/worktrees/being-added/commondir");
      if (when === "not yet created") rmSync(commondir);
      const g = new Git({ cwd: repo, timeoutMs: 30_000 });
      await g.head();
      recordLocators(await g.commonDir());
      add.finish();
      expect(repairLocators(await g.commonDir())).toEqual([]);
      expect(readFileSync(commondir, "utf8")).toBe("../..\n");
    });

  test("an emptied commondir of a worktree nobody is adding is put back", async () => {
    const repo = makeRepo();
    const sibling = join(tempDir("sib-"), "sibling");
    git(repo, "worktree", "add", "-q", "-b", "s", sibling);
    const g = new Git({ cwd: repo, timeoutMs: 30_000 });
    await g.head();
    recordLocators(await g.commonDir());
    writeFileSync(join(repo, ".git/worktrees/sibling/commondir"), "");
    const said = repairLocators(await g.commonDir());
    expect(said).toHaveLength(1);
    expect(readFileSync(join(repo, ".git/worktrees/sibling/commondir"), "utf8").trim()).toBe("../..");
  });
});
