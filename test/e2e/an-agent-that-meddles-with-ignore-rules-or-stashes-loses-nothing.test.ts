// An agent that removes the rule ignoring a user's file (an emptied info/exclude, a deleted
// .gitignore), or that touches `git stash`, loses nothing of the user's: the revert deletes only what
// the attempt created, dropped stash entries come back, and stashing the tree is a rejected attempt.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { ONE_STORY, readState as state } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";

/** Runs a loop whose `command` agent runs `body` and then reports FAILED (one attempt: --max-retries 1 keeps its changes; 2 reverts it). */
async function run(repo: string, mode: string, body: string, extra: string[] = []) {
  const script = join(tempDir("meddling-agent-"), "agent.sh");
  writeFileSync(script, `cat >/dev/null\n${body}\necho '<promise>FAILED: meddled</promise>'\n`);
  return wtLoop(
    [
      "start",
      "--terminal",
      "inline",
      "--on-complete",
      "keep",
      "--checkpoint",
      mode,
      "--agent",
      "command",
      "--agent-cmd",
      `sh ${script}`,
      "--max",
      "2",
      "--max-retries",
      "3",
      ...extra,
    ],
    { cwd: repo },
  );
}

describe.each([["branch"], ["stash"]])("%s checkpoints", (mode) => {
  test("an emptied info/exclude: the user's file it ignored and the loop's own files survive the revert", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const exclude = join(repo, ".git/info/exclude");
    writeFileSync(exclude, readFileSync(exclude, "utf8") + "/mysecret.env\n");
    writeFileSync(join(repo, "mysecret.env"), "TOPSECRET\n");
    const r = await run(repo, mode, `: > "$(git rev-parse --git-path info/exclude)"`);
    expect(r.stderr).not.toContain("    at ");
    expect(readFileSync(join(repo, "mysecret.env"), "utf8")).toBe("TOPSECRET\n");
    const s = state(repo);
    expect(s.iterations.length).toBe(2);
    for (const it of s.iterations) expect(existsSync(it.log_file)).toBe(true);
    expect(existsSync(join(repo, ".claude/loop-events.jsonl"))).toBe(true);
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).not.toContain(".claude/");
    if (mode === "branch") expect(git(repo, "ls-tree", "-r", "--name-only", "HEAD")).not.toContain(".claude/");
  });

  test("a deleted .gitignore of a cache folder: the cached data survives the revert", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    mkdirSync(join(repo, "cache"));
    writeFileSync(join(repo, "cache/.gitignore"), "*\n");
    writeFileSync(join(repo, "cache/data.bin"), "PRECIOUS\n");
    await run(repo, mode, "rm cache/.gitignore");
    expect(readFileSync(join(repo, "cache/data.bin"), "utf8")).toBe("PRECIOUS\n");
  });

  test("`git stash clear`: the attempt is rejected and the user's stash entry is put back", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY, "us.txt": "v1\n" });
    writeFileSync(join(repo, "us.txt"), "stashed by the user\n");
    git(repo, "stash", "push", "-q", "-m", "mine");
    const mine = git(repo, "rev-parse", "refs/stash");
    const r = await run(repo, mode, "git stash clear\necho junk > junk.txt", ["--max", "1"]);
    expect(r.stderr).not.toContain("    at ");
    expect(state(repo).iterations[0].outcome).toBe("rejected");
    expect(state(repo).iterations[0].reason).toContain("stash entry was dropped");
    expect(git(repo, "stash", "list", "--format=%H %gs")).toContain(`${mine} On main: mine`);
  });

  // refs/stash does not move when an older entry is dropped: only the reflog changes. The stash list
  // is read again only when those files change, so this proves that check sees such a drop, on a
  // later attempt too (the listing of the first attempt is remembered).
  test("`git stash drop stash@{1}` on the second attempt: the user's older entry is put back", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY, "us.txt": "v1\n" });
    for (const n of [1, 2]) {
      writeFileSync(join(repo, "us.txt"), `stashed by the user ${n}\n`);
      git(repo, "stash", "push", "-q", "-m", `mine-${n}`);
    }
    const older = git(repo, "rev-parse", "refs/stash@{1}");
    const counter = join(tempDir("counter-"), "n");
    const r = await run(repo, mode, `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}\n[ "$n" = 1 ] && git stash drop -q 'stash@{1}'`);
    expect(r.stderr).not.toContain("    at ");
    const its = state(repo).iterations;
    expect(its.map((i: { outcome: string }) => i.outcome)).toEqual(["failed", "rejected"]);
    expect(its[1].reason).toContain("stash entry was dropped");
    expect(git(repo, "stash", "list", "--format=%H %gs")).toContain(`${older} On main: mine-1`);
  });

  // Branch mode committed the user's work as `initial state`: there is nothing for the agent to stash.
  test("`git stash -u` by the agent: the user's uncommitted work is in the tree at the end (stash mode: the attempt is rejected)", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY, "app.txt": "v1\n" });
    writeFileSync(join(repo, "app.txt"), "the user's edit\n");
    writeFileSync(join(repo, "notes.txt"), "untracked notes\n");
    const body = "git stash push -q -u\nsed -i 's/- \\[ \\]/- [x]/' tasks.md";
    const script = join(tempDir("stashing-agent-"), "agent.sh");
    writeFileSync(script, `cat >/dev/null\n${body}\necho '<promise>COMPLETE</promise>'\n`);
    const r = await wtLoop(
      ["start", "--terminal", "inline", "--on-complete", "keep", "--checkpoint", mode, "--agent", "command", "--agent-cmd", `sh ${script}`, "--max", "1"],
      { cwd: repo },
    );
    if (mode === "stash") {
      expect(r.code).not.toBe(0);
      expect(state(repo).iterations[0].outcome).toBe("rejected");
      expect(state(repo).iterations[0].reason).toContain("the work in the tree was stashed");
    }
    expect(readFileSync(join(repo, "app.txt"), "utf8")).toBe("the user's edit\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("untracked notes\n");
  });
});
