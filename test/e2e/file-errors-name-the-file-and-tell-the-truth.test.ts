// Disk full, immutable files, folders in the way: the error names the file and the operation, no
// stack trace is printed, and the state left behind tells the truth (or is corrected by the next command).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const ONE_STORY = "## 1. Only story\n- [ ] 1.1 Do it\n";
// chattr +i gives EPERM even to root; the flag is always taken off again so the temp dir can go.
const immutable: string[] = [];
const chattr = (flag: "+i" | "-i", path: string) => {
  const r = Bun.spawnSync(["chattr", flag, path], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`chattr ${flag} ${path}: ${r.stderr}`);
  if (flag === "+i") immutable.push(path);
};
afterEach(() => {
  for (const p of immutable.splice(0)) Bun.spawnSync(["chattr", "-i", p]);
});

describe("file errors", () => {
  test("info/exclude that cannot be written (EPERM): start names it, exits 1, and writes nothing", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const exclude = join(repo, ".git/info/exclude");
    chattr("+i", exclude);
    const r = await wtLoop(["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "true"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`wt-loop could not write ${exclude}: EPERM`);
    expect(r.stderr).not.toContain("    at ");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });
});
