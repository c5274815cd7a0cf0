// Where there is no /proc (macOS), wt-loop tells its own processes with `ps` and `lsof`. Here, on
// Linux, `WT_LOOP_PROC=ps` makes every wt-loop process use that way: a second `start` in a worktree
// whose loop runs is refused, `stop --force` ends the real runner and its agent, and a state naming
// an unrelated live process signals nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTime, useProcessTable } from "../../src/proc/pid.ts";
import { CLI, baseEnv, fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

const PS = { WT_LOOP_PROC: "ps" };
const started: { kill(sig?: number): void }[] = [];
afterAll(() => {
  for (const p of started) p.kill(9);
});

async function statusline(cwd: string) {
  const proc = Bun.spawn([process.execPath, CLI, "statusline"], { cwd, env: baseEnv(PS), stdin: new Blob([JSON.stringify({ cwd })]), stdout: "pipe" });
  return (await new Response(proc.stdout).text()).trim();
}

describe("without /proc (ps and lsof)", () => {
  test("a second start is refused while the loop runs; stop --force ends the runner and its agent's group", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const agent = fakeAgent([COMPLETE({ write: { [join(repo, "one.txt")]: "1" } }), { hangSec: 300, grandchild: true }], tempDir("fake-agent-"));
    const env = { ...agent.env, ...PS };
    const run = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env });
    started.push(run);
    const grandchildFile = join(agent.dir, "grandchild.pid");
    const state = await waitFor(
      "the loop's second iteration to run its agent",
      () => {
        const s = existsSync(grandchildFile) && readState(repo);
        return s && s.agent_pid && s.current_iteration === 2 && s;
      },
      30_000,
      { whileRunning: run },
    );
    expect(state.runner_started).toMatch(/^\w{3} \w{3} \d{1,2} \d\d:\d\d:\d\d \d{4}$/); // recorded in ps's form

    // A second loop that is let in would hang on the agent's next step: ended after 20 s, it fails below.
    const second = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env, timeoutMs: 20_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/one loop runs per worktree|is being started|already running/);
    const status = await wtLoop(["status"], { cwd: repo, env });
    expect(status.stdout).toContain("Loop in repo: running");
    expect(await statusline(repo)).toBe("wt-loop 2/30 · story 2/2");

    const stop = await wtLoop(["stop", "--force"], { cwd: repo, env });
    expect(stop.stdout).toContain("Killed the loop");
    expect(await run.exited).toBe(137);
    await waitGone("the agent", state.agent_pid);
    await waitGone("the agent's grandchild", Number(readFileSync(grandchildFile, "utf8")));
    expect(readState(repo).status).toBe("stopped");
  }, 90_000);

  test("a planted state naming an unrelated live sleep, with its real start time: stop --force signals nothing", async () => {
    const repo = makeRepo();
    const sleep = Bun.spawn(["sleep", "300"], { cwd: repo, stdout: "ignore", stderr: "ignore" });
    started.push(sleep);
    const before = useProcessTable("ps");
    const sleepStarted = processStartTime(sleep.pid);
    useProcessTable(before);
    expect(sleepStarted).not.toBeNull();
    mkdirSync(join(repo, ".claude"), { recursive: true });
    const planted = sampleState({
      worktree_path: repo,
      worktree_name: "repo",
      status: "running",
      ended_at: null,
      completion: null,
      runner_pid: sleep.pid,
      runner_started: sleepStarted,
    });
    writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(planted));
    // The status bar starts no `ps`: it sees only that the pid is in use, and shows the state as recorded.
    expect(await statusline(repo)).toBe("wt-loop 2/30 · story 2/2");
    const gone = Bun.spawnSync(["true"]).pid;
    writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify({ ...planted, runner_pid: gone }));
    expect(await statusline(repo)).toBe("wt-loop stopped (runner died)");
    writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(planted));
    const stop = await wtLoop(["stop", "--force"], { cwd: repo, env: PS });
    expect(stop.stdout + stop.stderr).toContain("stale or foreign state file");
    expect(stop.stdout + stop.stderr).toContain("nothing was signalled");
    expect(sleep.exitCode).toBeNull();
    expect(sleep.killed).toBe(false);
    expect(process.kill(sleep.pid, 0)).toBe(true);
  }, 60_000);
});
