// Before wt-loop removes an index.lock left by a git of its own that was killed, it asks which live gits
// work in the worktree (proc/git-holders.ts): a real git, held open, is found by its folder, and a git in
// another worktree's admin folder under `.git/` (a lane's, with an index of its own) is not.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { gitRunningIn, gitsWorkingIn } from "../../src/proc/git-holders.ts";
import { makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

describe.if(process.platform === "linux")("git holders", () => {
  test("a live git working in the folder is found; one under its .git/ or elsewhere is not", async () => {
    const repo = realpathSync(makeRepo());
    const admin = join(repo, ".git", "worktrees", "lane-1");
    mkdirSync(admin, { recursive: true });
    const other = realpathSync(makeRepo());
    // `git cat-file --batch` waits on its stdin: a git process that stays while the test looks.
    const held = [repo, admin, other].map((cwd) => Bun.spawn(["git", "cat-file", "--batch"], { cwd, stdin: "pipe", stdout: "ignore" }));
    try {
      const found = await waitFor("the held git in the repository", () => {
        const pids = gitsWorkingIn(repo);
        return pids?.includes(held[0]!.pid) ? pids : null;
      });
      expect(found).not.toContain(held[1]!.pid);
      expect(found).not.toContain(held[2]!.pid);
      expect(gitsWorkingIn(other)).toContain(held[2]!.pid);
      expect(gitRunningIn(repo)).toBe(true);
      expect(gitRunningIn(join(repo, "src"))).toBe(false);
    } finally {
      for (const p of held) p.kill();
      await Promise.all(held.map((p) => p.exited));
    }
  });
});
