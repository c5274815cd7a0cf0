// The runner writes an attempt's start without forcing it to the disk when it is a retry of the story the last
// attempt failed (record/store.ts; test/record/store.test.ts pins which writes are forced), and the agent's pid
// never: a power cut during the retry leaves the state as the failed attempt's end record had it, and the tree
// as the agent left it, its box ticked. The restart from that state must not count the story done on that tick.
// The power cut is played here: the runner killed (-9), and its state file put back to the last forced write,
// copied when the failed attempt was reverted (the first git `read-tree` after it, just after its end record).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangEnv } from "../checkpoint/user-work.ts";
import { spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { tickingAgent } from "../helpers/ticking-agent.ts";
import { waitFor } from "../helpers/wait.ts";

const TWO = "## 1. First\n- [ ] 1.1 a\n\n## 2. Second\n- [ ] 2.1 b\n";

describe.each([["branch"], ["stash"]] as const)("a power cut during a retry (%s checkpoints)", (checkpoint) => {
  test("the state as the failed attempt left it, the retry's tick in the tree: the next start attempts that story again, with its check", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const dir = tempDir("agent-");
    const cut = join(dir, "at-power-cut.json");
    // Attempt 1 ticks story 1, leaves a file and fails (arming the copy of the state at its revert); attempt 2
    // ticks story 1 again and hangs, as an agent at work when the power goes.
    const first = join(dir, "first.sh");
    writeFileSync(
      first,
      `n=$(cat ${dir}/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/runs; cat > /dev/null
sed -i 's/- \\[ \\] 1\\./- [x] 1./' tasks.md
if [ $n -eq 1 ]; then echo scratch > scratch.txt; touch ${dir}/arm; echo '<promise>FAILED: not yet</promise>'; exit 0; fi
touch ${dir}/ticked; exec sleep 300
`,
    );
    const copyAtRevert = { ...hangEnv(join(dir, "arm"), "read-tree"), FAKE_GIT_BEFORE: `cp ${repo}/.claude/loop-state.json ${cut}` };
    const runner = spawnWtLoop(
      ["start", "--terminal", "inline", "--on-complete", "keep", "--checkpoint", checkpoint, "--agent", "command", "--agent-cmd", `sh ${first}`],
      { cwd: repo, env: copyAtRevert, stdout: "ignore", stderr: "ignore" },
    );
    await waitFor("the retry to tick its box", () => existsSync(join(dir, "ticked")), 60_000, { whileRunning: runner });
    runner.kill("SIGKILL");
    await runner.exited;

    // The power cut: what was not forced to the disk is gone — the retry's start and its agent's pid.
    const forced = JSON.parse(readFileSync(cut, "utf8"));
    expect(forced.iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([["1", "failed"]]);
    expect(forced.current_iteration).toBe(1);
    expect(readState(repo).current_iteration).toBe(2); // what the kill alone would have left
    writeFileSync(join(repo, ".claude/loop-state.json"), readFileSync(cut));
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 a"); // the retry's unchecked tick

    const again = await wtLoop(["start", "--terminal", "inline", "--agent-cmd", tickingAgent(dir)], { cwd: repo });
    expect(again.stderr).not.toContain("    at ");
    expect(again.code).toBe(0);
    expect(readState(repo).iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([
      ["1", "complete"],
      ["2", "complete"],
    ]);
    expect(readFileSync(join(dir, "prompt-1.txt"), "utf8")).toContain("was not accepted");
  }, 120_000);
});
