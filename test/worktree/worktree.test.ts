import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { NOT_IN_WORKTREE } from "../../src/errors.ts";
import { resolveWorktree } from "../../src/worktree/worktree.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

describe("resolveWorktree", () => {
  test("in the main checkout, from a subdirectory", async () => {
    const repo = makeRepo();
    mkdirSync(join(repo, "src/deep"), { recursive: true });
    expect(await resolveWorktree(join(repo, "src/deep"))).toEqual({ path: repo, name: "repo" });
  });

  test("in a linked worktree (git worktree add)", async () => {
    const repo = makeRepo();
    const wt = join(tempDir(), "feature-x");
    git(repo, "worktree", "add", "-q", "-b", "feature-x", wt);
    const r = await resolveWorktree(wt);
    expect(r.path).toBe(wt);
    expect(r.name).toBe(basename(wt));
  });

  test("a worktree whose name ends in a space is itself, not its neighbour without the space", async () => {
    const repo = makeRepo();
    const parent = tempDir();
    git(repo, "worktree", "add", "-q", "-b", "a", join(parent, "proj"));
    git(repo, "worktree", "add", "-q", "-b", "b", join(parent, "proj "));
    expect(await resolveWorktree(join(parent, "proj "))).toEqual({ path: join(parent, "proj "), name: "proj " });
  });

  test("outside git: the exact message of SPEC §2", async () => {
    await expect(resolveWorktree(tempDir())).rejects.toThrow(NOT_IN_WORKTREE);
  });
});
