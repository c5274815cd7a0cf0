// A completion a dead runner began is finished by the next start (checkpoint/resume.ts). The state that says so
// may not be ours: a repository can commit a `.claude/loop-state.json` marked `completing`, naming the user's
// own branch or stash (issue 30.5). Only names a loop of wt-loop made here are acted on.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Git } from "../../src/checkpoint/git.ts";
import { resumeAfterDeadRunner } from "../../src/checkpoint/resume.ts";
import { ORIGIN_KEY } from "../../src/checkpoint/strategy.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

const dead = () => Bun.spawnSync(["true"]).pid;
const cleanupState = (repo: string, over = {}) =>
  sampleState({
    worktree_path: repo,
    status: "done",
    completion: null,
    completing: "cleanup",
    runner_pid: dead(),
    runner_started: "1",
    checkpoint: "branch",
    checkpoint_branch: "feature",
    original_branch: "main",
    original_commit: git(repo, "rev-parse", "HEAD"),
    index_tree: null,
    ...over,
  });

describe("resuming a dead runner's completion", () => {
  test("a planted state marking a cleanup of the user's own branch: the branch is kept, the note says why", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    git(repo, "branch", "feature"); // the user's, at the same commit: the cleanup's checks alone would delete it
    const s = cleanupState(repo);
    const notes = await resumeAfterDeadRunner(new Git({ cwd: repo, timeoutMs: 30_000 }), s);
    expect(git(repo, "branch", "--list", "feature")).toContain("feature");
    expect(notes.join("\n")).toContain("feature");
    expect(notes.join("\n")).toContain("not made by a loop");
    expect(s).toMatchObject({ completing: null, completion: null });
  });

  test("a planted state naming the user's own stash among a stash loop's checkpoints: the stash is kept", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    writeFileSync(join(repo, "a.txt"), "the user's stashed work\n");
    git(repo, "stash", "push", "-q", "-m", "the user's stash");
    const sha = git(repo, "rev-parse", "stash@{0}");
    const s = cleanupState(repo, { checkpoint: "stash", checkpoint_branch: null, checkpoint_stashes: [sha] });
    await resumeAfterDeadRunner(new Git({ cwd: repo, timeoutMs: 30_000 }), s);
    expect(git(repo, "stash", "list", "--format=%H")).toBe(sha);
  });

  test("the loop's own branch (its origin recorded in this repository's config): the cleanup is finished", async () => {
    const repo = makeRepo({ "a.txt": "a\n" });
    git(repo, "branch", "ralph/x");
    git(repo, "config", ORIGIN_KEY("ralph/x"), "branch:main");
    const s = cleanupState(repo, { checkpoint_branch: "ralph/x" });
    const notes = await resumeAfterDeadRunner(new Git({ cwd: repo, timeoutMs: 30_000 }), s);
    expect(notes.join("\n")).toContain("Finished the previous loop's interrupted cleanup");
    expect(git(repo, "branch", "--list", "ralph/x")).toBe("");
    expect(s).toMatchObject({ completing: null, completion: "cleanup" });
  });
});
