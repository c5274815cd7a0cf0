// `wt-loop stop --cleanup` after the runner was killed (kill -9, a closed window): the user asked for the cleanup
// completion, so it is done as a live `stop --cleanup` would do it — back on their branch with the loop's work as
// uncommitted changes, the loop branch deleted — not ignored (docs/how-it-works.md / docs/parallel.md).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { collect, readJson, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

describe("stop --cleanup after a kill -9", () => {
  test("a sequential run: the cleanup is done, the loop's work uncommitted on your branch", async () => {
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n", "README.md": "readme\n" });
    writeFileSync(join(repo, "README.md"), "readme\nmine, uncommitted\n");
    const dir = tempDir("agent-");
    const started = join(dir, "started");
    // The agent writes its work, says so, and then works on until it is ended.
    writeFileSync(join(dir, "agent.sh"), `cat > /dev/null\necho work > work.txt\n: > "${started}"\nsleep 120\n`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", `sh "${join(dir, "agent.sh")}"`, "--on-complete", "keep"];
    const proc = spawnWtLoop(args, { cwd: repo, stdout: "pipe", stderr: "ignore" });
    const out = collect(proc.stdout);
    await waitFor("the agent to have written its work", () => existsSync(started), 90_000, { whileRunning: proc }).catch((e) => {
      throw new Error(`${e.message}: ${out.text().slice(-1500)}`);
    });
    const loopBranch = git(repo, "branch", "--show-current");
    expect(loopBranch).toStartWith("ralph/");
    proc.kill("SIGKILL");
    await proc.exited;

    const r = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Back on main with all the loop's work as uncommitted changes");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "for-each-ref", "--format=%(refname)", `refs/heads/${loopBranch}`)).toBe("");
    expect(readFileSync(join(repo, "work.txt"), "utf8")).toBe("work\n");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("readme\nmine, uncommitted\n");
    const s = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect([s.status, s.completion, s.completing ?? null]).toEqual(["stopped", "cleanup", null]);
    // Asked again: nothing left to do, and it says so.
    const again = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("cleanup");
  }, 200_000);

  test("HEAD moved off the loop branch meanwhile: nothing is moved, and it says why and what to run", async () => {
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n" });
    const dir = tempDir("agent-");
    const started = join(dir, "started");
    writeFileSync(join(dir, "agent.sh"), `cat > /dev/null\n: > "${started}"\nsleep 120\n`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", `sh "${join(dir, "agent.sh")}"`, "--on-complete", "keep"];
    const proc = spawnWtLoop(args, { cwd: repo, stdout: "ignore", stderr: "ignore" });
    await waitFor("the agent to run", () => existsSync(started), 90_000, { whileRunning: proc });
    const loopBranch = git(repo, "branch", "--show-current");
    proc.kill("SIGKILL");
    await proc.exited;
    git(repo, "checkout", "-q", "main");

    const r = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Cleanup not done: HEAD is on main, not on the loop branch ${loopBranch}`);
    expect(r.stdout).toContain(`git merge --squash ${loopBranch}`);
    expect(git(repo, "for-each-ref", "--format=%(refname)", `refs/heads/${loopBranch}`)).toBe(`refs/heads/${loopBranch}`);
    expect(readJson<State>(join(repo, ".claude/loop-state.json")).completion).toBeNull();
  }, 200_000);

  test("--checkpoint stash: the loop's checkpoint stashes are dropped, its work stays in the tree", async () => {
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n" });
    const dir = tempDir("agent-");
    const started = join(dir, "started");
    // The first story is done (a checkpoint stash is made); the second one's agent works on until it is ended.
    writeFileSync(
      join(dir, "agent.sh"),
      `p=$(cat)\nif printf '%s' "$p" | grep -q 'Your story: 1\\.'; then sed -i 's/- \\[ \\] 1.1/- [x] 1.1/' tasks.md; echo one > one.txt; echo '<promise>COMPLETE</promise>'; exit 0; fi\n` +
        `echo two > two.txt\n: > "${started}"\nsleep 120\n`,
    );
    const args = [
      "start",
      "--plain",
      "--terminal",
      "inline",
      "--agent",
      "command",
      "--agent-cmd",
      `sh "${join(dir, "agent.sh")}"`,
      "--on-complete",
      "keep",
      "--checkpoint",
      "stash",
    ];
    const proc = spawnWtLoop(args, { cwd: repo, stdout: "pipe", stderr: "ignore" });
    const out = collect(proc.stdout);
    await waitFor("the second story's agent to have written its work", () => existsSync(started), 90_000, { whileRunning: proc }).catch((e) => {
      throw new Error(`${e.message}: ${out.text().slice(-1500)}`);
    });
    expect(git(repo, "stash", "list")).not.toBe("");
    proc.kill("SIGKILL");
    await proc.exited;

    const r = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("dropped 1 checkpoint stash(es) this loop made");
    expect(git(repo, "stash", "list")).toBe("");
    expect(readFileSync(join(repo, "one.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(repo, "two.txt"), "utf8")).toBe("two\n");
    expect(readJson<State>(join(repo, ".claude/loop-state.json")).completion).toBe("cleanup");
  }, 200_000);

  test("killed while the auditor had changed the tree: its changes are put back first, then the cleanup", async () => {
    const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n" });
    const dir = tempDir("agent-");
    const started = join(dir, "started");
    writeFileSync(join(dir, "agent.sh"), 'cat > /dev/null\necho work > work.txt\nsed -i "s/- \\[ \\]/- [x]/" tasks.md\necho "<promise>COMPLETE</promise>"\n');
    // The auditor rewrites the work and leaves notes, then hangs until killed.
    writeFileSync(join(dir, "auditor.sh"), `cat > /dev/null\necho scribbled > work.txt\necho notes > audit-notes.txt\n: > "${started}"\nsleep 120\n`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", `sh "${join(dir, "agent.sh")}"`, "--on-complete", "keep"];
    const audit = ["--audit", "--audit-agent", "command", "--audit-cmd", `sh "${join(dir, "auditor.sh")}"`];
    const proc = spawnWtLoop([...args, ...audit], { cwd: repo, stdout: "ignore", stderr: "ignore" });
    await waitFor("the auditor to have changed the tree", () => existsSync(started), 90_000, { whileRunning: proc });
    proc.kill("SIGKILL");
    await proc.exited;

    const r = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("put back what the auditor had changed (audit-notes.txt (added), work.txt (modified))");
    expect(r.stdout).toContain("Back on main with all the loop's work as uncommitted changes");
    expect(readFileSync(join(repo, "work.txt"), "utf8")).toBe("work\n");
    expect(existsSync(join(repo, "audit-notes.txt"))).toBe(false);
    expect(readJson<State>(join(repo, ".claude/loop-state.json")).held ?? null).toBeNull();
  }, 200_000);
});
