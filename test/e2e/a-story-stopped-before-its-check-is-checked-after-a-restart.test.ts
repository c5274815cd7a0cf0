// A stop (or a runner's death) during an attempt leaves the agent's work in the tree, its ticked
// boxes included, unchecked by wt-loop — cut short during the agent's run or its --verify command.
// A restart that continues the loop must not count that story done on its ticks: it is attempted
// again first, so the claim, the box check and the verify gate all happen.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hangEnv } from "../checkpoint/user-work.ts";
import { spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState as state } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { tickingAgent } from "../helpers/ticking-agent.ts";
import { waitFor } from "../helpers/wait.ts";

const TWO = "## 1. First\n- [ ] 1.1 a\n\n## 2. Second\n- [ ] 2.1 b\n";

describe("a story stopped before its check", () => {
  test("stopped during --verify: the restart attempts that story again, with the check, before the next", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const dir = tempDir("agent-");
    // The first verify run hangs until the loop is stopped; the later ones pass.
    const verify = `if [ -f ${dir}/verified-once ]; then exit 0; fi; touch ${dir}/verified-once; sleep 300`;
    const args = ["start", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", tickingAgent(dir), "--verify", verify];
    const first = spawnWtLoop(args, { cwd: repo, stdout: "ignore", stderr: "ignore" });
    await waitFor("the first verify run", () => existsSync(join(dir, "verified-once")), 30_000, { whileRunning: first });
    expect((await wtLoop(["stop"], { cwd: repo })).code).toBe(0);
    expect(await first.exited).toBe(4);
    expect(state(repo).iterations.map((i: { outcome: string }) => i.outcome)).toEqual(["stopped"]);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 a"); // the unchecked tick is in the tree

    const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo }); // continues with the remembered options
    expect(again.stderr).not.toContain("    at ");
    expect(again.code).toBe(0);
    const s = state(repo);
    expect(s.iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([
      ["1", "complete"],
      ["2", "complete"],
    ]);
    expect(s.iterations[0].verify.exit_code).toBe(0); // story 1 went through the gate this time
    expect(readFileSync(join(dir, "prompt-2.txt"), "utf8")).toContain("was not accepted");
    expect(s.unchecked_story ?? null).toBeNull();
  }, 60_000);

  test("the runner killed (kill -9) while the agent, its box ticked, still works: the next start attempts that story again", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const dir = tempDir("agent-");
    const agent = tickingAgent(dir);
    // The first run ticks its box, then hangs; the runner is killed meanwhile.
    const first = spawnWtLoop(
      [
        "start",
        "--terminal",
        "inline",
        "--on-complete",
        "keep",
        "--agent",
        "command",
        "--agent-cmd",
        `if [ ! -f ${dir}/hung ]; then touch ${dir}/hung; sed -i 's/- \\[ \\] 1\\./- [x] 1./' tasks.md; touch ${dir}/ticked; exec sleep 300; fi; ${agent}`,
      ],
      {
        cwd: repo,
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    await waitFor("the agent to tick its box", () => existsSync(join(dir, "ticked")), 30_000, { whileRunning: first });
    first.kill("SIGKILL");
    await first.exited;
    const again = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", agent], { cwd: repo });
    expect(again.stderr).not.toContain("    at ");
    expect(again.code).toBe(0);
    const s = state(repo);
    expect(s.iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([
      ["1", "complete"],
      ["2", "complete"],
    ]);
    expect(readFileSync(join(dir, "prompt-1.txt"), "utf8")).toContain("was not accepted");
  }, 60_000);

  // The loop ends stuck on a failed attempt and leaves its tree to look at — ticks included, when the
  // agent ticked its box and still reported FAILED. "Fix the cause, then `wt-loop start`" must not
  // count that story done on those ticks.
  test("stuck on an attempt that ticked its box but failed: the next start attempts that story again", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const dir = tempDir("agent-");
    const failing = join(dir, "failing.sh");
    writeFileSync(failing, `cat >/dev/null\nsed -i 's/- \\[ \\] 1\\./- [x] 1./' tasks.md\necho '<promise>FAILED: the tests do not pass</promise>'\n`);
    const first = await wtLoop(
      ["start", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", `sh ${failing}`, "--max-retries", "1"],
      { cwd: repo },
    );
    expect(first.code).toBe(2);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1 a"); // left for inspection
    const again = await wtLoop(["start", "--terminal", "inline", "--agent-cmd", tickingAgent(dir)], { cwd: repo });
    expect(again.stderr).not.toContain("    at ");
    expect(again.code).toBe(0);
    expect(state(repo).iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([
      ["1", "complete"],
      ["2", "complete"],
    ]);
    expect(readFileSync(join(dir, "prompt-1.txt"), "utf8")).toContain("was not accepted");
  }, 60_000);

  // The restart that is to attempt that story first can itself be stopped before any attempt (here in
  // its first checkpoint): the story is still unchecked for the start after it.
  test("a restart stopped before its first attempt keeps the story unchecked for the next one", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const dir = tempDir("agent-");
    const failing = join(dir, "failing.sh");
    writeFileSync(failing, `cat >/dev/null\nsed -i 's/- \\[ \\] 1\\./- [x] 1./' tasks.md\necho '<promise>FAILED: no</promise>'\n`);
    expect(
      (
        await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", `sh ${failing}`, "--max-retries", "1"], {
          cwd: repo,
        })
      ).code,
    ).toBe(2);
    const flag = join(dir, "hang.flag");
    writeFileSync(flag, "");
    const hanging = hangEnv(flag, "write-tree"); // the first checkpoint's write-tree hangs
    const second = spawnWtLoop(["start", "--terminal", "inline", "--agent-cmd", tickingAgent(dir)], {
      cwd: repo,
      env: hanging,
      stdout: "ignore",
      stderr: "ignore",
    });
    await waitFor("the first checkpoint's write-tree to hang", () => existsSync(`${flag}.hanging`), 30_000, { whileRunning: second });
    expect((await wtLoop(["stop"], { cwd: repo })).code).toBe(0);
    await second.exited;
    expect(state(repo)).toMatchObject({ status: "stopped", iterations: [], unchecked_story: "1" });
    const third = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(third.code).toBe(0);
    expect(state(repo).iterations.map((i: { story_id: string; outcome: string }) => [i.story_id, i.outcome])).toEqual([
      ["1", "complete"],
      ["2", "complete"],
    ]);
  }, 60_000);
});
