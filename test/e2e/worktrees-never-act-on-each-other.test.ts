// Each command acts on its own worktree only: a worktree named like its neighbour plus a trailing
// space, and a `.claude` folder shared between two worktrees through a symlink.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { ONE_STORY } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

describe("worktrees never act on each other", () => {
  test("a loop in `proj ` writes its state in `proj `, and `proj` has none", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const parent = tempDir();
    const plain = join(parent, "proj");
    const spaced = join(parent, "proj ");
    git(repo, "worktree", "add", "-q", "-b", "plain", plain);
    git(repo, "worktree", "add", "-q", "-b", "spaced", spaced);
    const r = await runLoop(spaced, [COMPLETE()]);
    expect(r.code).toBe(0);
    expect(r.state.worktree_path).toBe(spaced);
    expect(r.state.worktree_name).toBe("proj ");
    expect(existsSync(join(plain, ".claude/loop-state.json"))).toBe(false);
    expect(readFileSync(join(plain, "tasks.md"), "utf8")).toBe(ONE_STORY);
    const s = await wtLoop(["status"], { cwd: plain });
    expect(s.code).toBe(1);
    expect(s.stderr).toContain("No loop has run in proj yet");
  });

  test("a .claude folder shared through a symlink: the other worktree's state is refused by every command", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const parent = tempDir();
    const a = join(parent, "a");
    const b = join(parent, "b");
    git(repo, "worktree", "add", "-q", "-b", "a", a);
    git(repo, "worktree", "add", "-q", "-b", "b", b);
    const r = await runLoop(a, [COMPLETE()], ["--on-complete", "keep"]);
    expect(r.code).toBe(0);
    symlinkSync(join(a, ".claude"), join(b, ".claude"));
    const before = readFileSync(join(a, ".claude/loop-state.json"), "utf8");
    for (const cmd of [
      ["status"],
      ["status", "--json"],
      ["history"],
      ["stop"],
      ["monitor"],
      ["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "true"],
    ]) {
      const out = await wtLoop(cmd, { cwd: b });
      expect(out.code, cmd.join(" ")).toBe(1);
      // A link where the state is, whoever made it, is never read or written through.
      expect(out.stderr, cmd.join(" ")).toContain(`.claude is a symbolic link (to ${join(a, ".claude")}); wt-loop never writes through links it did not make.`);
    }
    expect(readFileSync(join(a, ".claude/loop-state.json"), "utf8")).toBe(before);
    expect(git(b, "branch", "--show-current")).toBe("b");
  });
});
