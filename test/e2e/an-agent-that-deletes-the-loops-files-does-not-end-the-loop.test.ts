// Agents run `git clean -fdx` (or `rm -rf .claude`): the loop's own files are ignored by git, so
// they go with it — the state, the event log, the lock, this run's log folder. The loop goes on
// and tells the truth: every file comes back, the events after the deletion reach the log `monitor`
// reads, and the lock that keeps a second runner out is there again for the next attempt.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readEvents, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { readState } from "../helpers/fixtures.ts";

describe.each([["branch"], ["stash"]])("an agent that deletes the loop's files (%s checkpoints)", (mode) => {
  test("`git clean -fdx` in the first attempt: the second attempt runs, its events are logged, the lock and state are back while it runs", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Only\n- [ ] 1.1 do it\n", ".gitignore": ".env\n" });
    writeFileSync(join(repo, ".env"), "SECRET=1\n");
    const dir = tempDir("cleaning-agent-");
    const seen = join(dir, "seen");
    const script = join(dir, "agent.sh");
    writeFileSync(
      script,
      `cat >/dev/null
n=$(cat ${dir}/n 2>/dev/null || echo 0); echo $((n+1)) > ${dir}/n
if [ "$n" = 0 ]; then git clean -fdxq; echo '<promise>FAILED: cleaned up'; echo '</promise>'; exit 0; fi
for f in .claude/loop-state.json .claude/loop-events.jsonl; do [ -f "$f" ] && echo "$f" >> ${seen}; done
sed -i 's/- \\[ \\]/- [x]/' tasks.md
echo '<promise>COMPLETE</promise>'
`,
    );
    const r = await wtLoop(
      ["start", "--terminal", "inline", "--on-complete", "keep", "--checkpoint", mode, "--agent", "command", "--agent-cmd", `sh ${script}`],
      { cwd: repo },
    );
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(0);
    const state = readState(repo);
    expect(state.status).toBe("done");
    expect(state.iterations.map((i: { outcome: string }) => i.outcome)).toEqual(["failed", "complete"]);
    for (const it of state.iterations) expect(existsSync(it.log_file)).toBe(true);
    expect(readFileSync(seen, "utf8").trim().split("\n")).toEqual([".claude/loop-state.json", ".claude/loop-events.jsonl"]);
    const ends = readEvents(repo)
      .filter((e) => e.type === "IterationEnd" || e.type === "Complete")
      .map((e) => (e.type === "Complete" ? "Complete" : e.iteration));
    expect(ends).toEqual([1, 2, "Complete"]);
    // What the agent deleted and nothing can bring back is said, in the record and as it happens.
    const lost = "The agent deleted files git ignores, which no checkpoint holds and wt-loop cannot bring back: .env";
    expect(state.iterations[0].reason).toContain(lost);
    expect(state.iterations[1].reason).toBeNull();
    expect(r.stdout).toContain(lost);
  }, 60_000);

  // The lock is not among the files a clean can take: a second runner is kept out while the agent
  // that cleaned is still at work (the state file is gone then; the lock is what says "running").
  test("a second `start` while the agent that ran `git clean -fdx` is still running is refused", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Only\n- [ ] 1.1 do it\n" });
    const dir = tempDir("cleaning-agent-");
    const script = join(dir, "agent.sh");
    // It keeps running until the test says so (the file "go"), or 30 s at most.
    const waitGo = `for i in $(seq 600); do [ -e ${dir}/go ] && break; sleep 0.05; done`;
    writeFileSync(script, `cat >/dev/null\ngit clean -fdxq\ntouch ${dir}/cleaned\n${waitGo}\necho '<promise>FAILED: slow</promise>'\n`);
    const first = spawnWtLoop(
      ["start", "--terminal", "inline", "--on-complete", "keep", "--checkpoint", mode, "--agent", "command", "--agent-cmd", `sh ${script}`, "--max", "1"],
      {
        cwd: repo,
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    await waitFor("the agent's git clean", () => existsSync(join(dir, "cleaned")), 30_000, { whileRunning: first });
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false); // the clean took it
    const second = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--checkpoint", mode, "--agent", "command", "--agent-cmd", "true"], {
      cwd: repo,
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("one loop runs per worktree");
    writeFileSync(join(dir, "go"), "");
    expect(await first.exited).toBe(2); // its own end: --max 1, stuck
  }, 60_000);
});
