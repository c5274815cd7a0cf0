// The loop owns its branch, and only it: an agent that switches branches, commits on the user's
// branch or rewrites history has its attempt rejected and reverted, with the reason in the next
// prompt; the user's branches end where they were and every kind of user work is intact — with
// branch and stash checkpoints. A ralph/<name> branch wt-loop did not create is refused at start.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git } from "../helpers/repo.ts";
import { AGENT_FILE, expectIntact, record, userWorkRepo } from "../checkpoint/user-work.ts";

type Mode = "branch" | "stash";
const loopBranch = (mode: Mode) => (mode === "branch" ? "ralph/repo" : "main");

const MISDEEDS = {
  "switches to another branch": (mode: Mode) => [["checkout", "-q", "feature"]],
  "commits on the user's branch": (mode: Mode) => [
    ["checkout", "-q", "feature"],
    ["add", "-A"],
    ["commit", "-qm", "agent commit on feature"],
    ["checkout", "-q", loopBranch(mode)],
  ],
  "rewrites history": (_mode: Mode) => [["commit", "-q", "--amend", "--allow-empty", "-m", "rewritten"]],
} as const;

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test.each(Object.keys(MISDEEDS) as (keyof typeof MISDEEDS)[])(
    "an agent that %s: rejected, reverted, nothing of the user's moved",
    async (what) => {
      const repo = userWorkRepo();
      const before = record(repo);
      const steps = [COMPLETE({ write: { [join(repo, AGENT_FILE)]: "agent\n", [join(repo, "junk.txt")]: "junk\n" }, git: MISDEEDS[what](mode) }), COMPLETE()];
      const r = await runLoop(repo, steps, ["--checkpoint", mode, "--on-complete", "cleanup"]);
      expect(r.code).toBe(0);
      expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "complete"]);
      expect(r.state.iterations[0]!.reason).toContain("Your attempt was not accepted because");
      expect(r.prompt(2)).toContain("Your attempt was not accepted because");
      expect(git(repo, "branch", "--show-current")).toBe("main");
      expectIntact(repo, before); // includes: main and feature are where they were
      expect(existsSync(join(repo, "junk.txt"))).toBe(false);
      expect(git(repo, "log", "--format=%s", "main")).not.toContain("agent commit");
    },
    60_000,
  );
});

test("a ralph/<name> branch wt-loop did not create is refused at start, before anything is written", async () => {
  const repo = userWorkRepo();
  git(repo, "branch", "ralph/repo", "feature");
  const before = record(repo);
  const r = await runLoop(repo, [COMPLETE()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("wt-loop did not create");
  expect(r.state).toBeNull();
  expect(r.calls()).toBe(0);
  expect(git(repo, "rev-parse", "ralph/repo")).toBe(git(repo, "rev-parse", "feature"));
  expectIntact(repo, before);
});

test("assume-unchanged files are named in a warning at start", async () => {
  const repo = userWorkRepo();
  const r = await runLoop(repo, [COMPLETE()], ["--checkpoint", "stash"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("--assume-unchanged: config.txt");
});
