// A user runs `wt-loop start` where every story is already ticked (the work was finished by hand,
// or a restart after a kill in the cleanup found the plan done): nothing is started and nothing is
// written — no ralph/ branch holding their uncommitted work, no state, still on their own branch.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop, baseEnv } from "../helpers/cli.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const DONE = "## 1. Greeting\n- [x] 1.1 Write greet.txt\n\n## 2. Farewell\n- [x] 2.1 Write bye.txt\n";

describe("start on a plan whose stories are all complete", () => {
  test.each(["branch", "stash"])("--checkpoint %s: exit 0, says so, writes nothing, the user's work untouched", async (mode) => {
    const repo = makeRepo({ "tasks.md": DONE, "notes.txt": "committed\n" });
    writeFileSync(join(repo, "notes.txt"), "my uncommitted edit\n");
    writeFileSync(join(repo, "untracked.txt"), "mine\n");
    const before = git(repo, "status", "--porcelain");
    const r = await wtLoop(["start", "--terminal", "inline", "--checkpoint", mode, "--on-complete", "keep"], { cwd: repo, env: baseEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Nothing to do: every story of tasks.md is complete (2/2)");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "branch", "--list", "ralph/*")).toBe("");
    expect(git(repo, "stash", "list")).toBe("");
    expect(git(repo, "status", "--porcelain")).toBe(before);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("my uncommitted edit\n");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });

  test("--dry-run says the same after the plan", async () => {
    const repo = makeRepo({ "tasks.md": DONE });
    const r = await wtLoop(["start", "--dry-run"], { cwd: repo, env: baseEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Nothing to do: every story of tasks.md is complete (2/2)");
  });

  test("one unticked box: the loop runs as always", async () => {
    const repo = makeRepo({ "tasks.md": DONE.replace("- [x] 2.1", "- [ ] 2.1") });
    const r = await wtLoop(["start", "--dry-run"], { cwd: repo, env: baseEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("Nothing to do");
  });
});
