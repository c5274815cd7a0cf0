// A revert restores exactly the checkpoint, with branch and stash checkpoints: the user's tracked
// edits, staged state (a partially staged file, a staged new file), untracked files, ignored files
// (also one ignored only by an uncommitted .gitignore edit the agent undid), empty folders and an
// --assume-unchanged override all survive an agent that wrecks the tree; no user branch or stash moves.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git } from "../helpers/repo.ts";
import { AGENT_FILE, expectIntact, ralphStashes, record, userWorkRepo } from "../checkpoint/user-work.ts";

/** An attempt that changes, deletes, stages and un-ignores the user's files, then reports FAILED. */
const wreck = (repo: string) => ({
  promise: "FAILED: made a mess",
  write: {
    [join(repo, "app.txt")]: "agent broke it\n",
    [join(repo, ".gitignore")]: "*.log\n", // the user's uncommitted edit is undone: .env.local is no longer ignored
    [join(repo, "junk.txt")]: "agent junk\n",
    [join(repo, "drafts/agent.md")]: "agent junk in the user's folder\n",
  },
  deleteFile: join(repo, "notes.txt"),
  git: [
    ["add", "-A"],
    ["rm", "-q", "--cached", "staged.txt"],
  ],
});

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test("a failed attempt is reverted to exactly the checkpoint: every kind of user work is intact byte for byte", async () => {
    const repo = userWorkRepo();
    const before = record(repo);
    const r = await runLoop(repo, [wreck(repo), COMPLETE({ write: { [join(repo, AGENT_FILE)]: "a1\n" } })], ["--checkpoint", mode, "--on-complete", "cleanup"]);
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["failed", "complete"]);
    expectIntact(repo, before);
    expect(existsSync(join(repo, "junk.txt"))).toBe(false);
    expect(existsSync(join(repo, "drafts/agent.md"))).toBe(false);
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(ralphStashes(repo)).toEqual([]);
  });

  test("an uncommitted .gitignore edit the agent undid: the file only that edit ignored survives the revert", async () => {
    const repo = userWorkRepo();
    const secret = readFileSync(join(repo, ".env.local"), "utf8");
    const steps = [{ promise: "FAILED: no", write: { [join(repo, ".gitignore")]: "*.log\n" } }, COMPLETE()];
    const r = await runLoop(repo, steps, ["--checkpoint", mode, "--on-complete", "keep"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(repo, ".env.local"), "utf8")).toBe(secret);
    expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe("*.log\n.env.local\n");
  });

  test("keep after a revert: the tree byte for byte, and (stash) the index as the user staged it", async () => {
    const repo = userWorkRepo();
    const before = record(repo);
    const r = await runLoop(repo, [wreck(repo), COMPLETE()], ["--checkpoint", mode, "--on-complete", "keep"]);
    expect(r.code).toBe(0);
    expectIntact(repo, before, { staged: mode === "stash" });
  });

  test("stuck after the last attempt: its changes stay in the tree, and the checkpoint holds the user's work", async () => {
    const repo = userWorkRepo();
    const before = record(repo);
    const r = await runLoop(
      repo,
      [{ promise: "FAILED: no", write: { [join(repo, AGENT_FILE)]: "a1\n" } }],
      ["--checkpoint", mode, "--max-retries", "1", "--on-complete", "cleanup"],
    );
    expect(r.code).toBe(2);
    expectIntact(repo, before);
    expect(ralphStashes(repo)).toEqual([]);
  });
});

test("a tree whose only change is a deleted file is still a checkpoint (stash)", async () => {
  const repo = userWorkRepo();
  rmSync(join(repo, "app.txt"));
  git(repo, "stash", "drop", "-q"); // no user stash in this one
  const r = await runLoop(
    repo,
    [{ promise: "FAILED: no", write: { [join(repo, "app.txt")]: "back?\n" } }, COMPLETE()],
    ["--checkpoint", "stash", "--on-complete", "keep"],
  );
  expect(r.code).toBe(0);
  expect(existsSync(join(repo, "app.txt"))).toBe(false);
});
