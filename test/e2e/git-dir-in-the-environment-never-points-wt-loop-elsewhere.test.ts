// A shell, a git hook or an agent's environment that exports GIT_DIR without GIT_WORK_TREE: git
// would take the current folder for the top of the worktree (or another repository altogether). Every
// command works on the worktree of the current folder, or refuses with a message naming the variable;
// neither the agent nor --verify inherits it.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { ONE_STORY } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

function repoWithSubfolder(): string {
  const repo = makeRepo({ "tasks.md": ONE_STORY, "src/app.txt": "v1\n" });
  mkdirSync(join(repo, "src"), { recursive: true });
  return repo;
}

describe("GIT_DIR set without GIT_WORK_TREE", () => {
  test("naming this repository, from a subfolder: the loop runs on the whole worktree, and neither agent nor --verify sees GIT_DIR", async () => {
    const repo = repoWithSubfolder();
    const seen = join(tempDir("verify-"), "git-dir");
    const r = await runLoop(
      join(repo, "src"),
      [COMPLETE({ write: { [join(repo, "src/app.txt")]: "v2\n" } })],
      ["--verify", `echo "\${GIT_DIR-unset} $(git rev-parse --show-toplevel)" > ${seen}`, "--on-complete", "keep"],
      { GIT_DIR: join(repo, ".git") },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const state = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
    expect([state.status, state.worktree_path]).toEqual(["done", repo]);
    expect(existsSync(join(repo, "src/.claude"))).toBe(false);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1");
    expect(readFileSync(seen, "utf8").trim()).toBe(`unset ${repo}`);
    expect(JSON.parse(readFileSync(join(r.agentDir, "git-env-1.json"), "utf8"))).toEqual({ GIT_DIR: null });

    const status = await wtLoop(["status"], { cwd: join(repo, "src"), env: { GIT_DIR: join(repo, ".git") } });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("Loop in ");
    expect(status.stdout).toContain(": done");
  }, 90_000);

  test("naming another repository: start refuses, names the variable and what to do, and writes nothing anywhere", async () => {
    const repo = repoWithSubfolder();
    const other = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [COMPLETE()], [], { GIT_DIR: join(other, ".git") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`GIT_DIR=${join(other, ".git")} is set`);
    expect(r.stderr).toContain("env -u GIT_DIR");
    expect(r.stderr).not.toContain("    at "); // no stack trace
    expect(r.calls()).toBe(0);
    expect(existsSync(join(repo, ".claude"))).toBe(false);
    expect(existsSync(join(other, ".claude"))).toBe(false);
  }, 60_000);

  test("outside any repository: refused the same way", async () => {
    const repo = repoWithSubfolder();
    const outside = tempDir("outside-");
    writeFileSync(join(outside, "tasks.md"), ONE_STORY);
    const r = await wtLoop(["status"], { cwd: outside, env: { GIT_DIR: join(repo, ".git") } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not in a git worktree");
    expect(existsSync(join(outside, ".claude"))).toBe(false);
  }, 60_000);
});
