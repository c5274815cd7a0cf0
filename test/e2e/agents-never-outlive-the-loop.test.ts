// Containment as a user meets it: an agent's descendant that left its process group (setsid) does not
// survive a stop, and when the runner itself dies (kill -9, a closed window) whichever command notices
// the death ends what its agent left behind.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { buildBinary, fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { deliver, waitFor, waitGone } from "../helpers/wait.ts";

/** A loop whose first agent run leaves a setsid grandchild and hangs. */
async function startHanging(repo: string, bin?: string, step: object = {}) {
  const agent = fakeAgent([{ hangSec: 300, setsidGrandchild: true, ...step }], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, bin, env: agent.env, stdout: "ignore", stderr: "ignore" });
  const pidFile = join(agent.dir, "setsid.pid");
  const agentPid = await waitFor(
    "the agent to start and leave its setsid grandchild",
    () => readFileSync(pidFile, "utf8").trim() && (readState(repo).agent_pid as number),
    30_000,
    { whileRunning: proc },
  ).catch((e) => {
    proc.kill("SIGKILL");
    throw e;
  });
  return { proc, agentPid, grandchild: Number(readFileSync(pidFile, "utf8")), agentDir: agent.dir };
}

const TASKS = "## 1. One\n- [ ] 1.1 a\n";

describe("no agent process outlives the loop", () => {
  test("wt-loop stop: the agent's setsid grandchild is gone when the loop has stopped", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const run = await startHanging(repo);
    expect((await wtLoop(["stop"], { cwd: repo })).code).toBe(0);
    expect(await run.proc.exited).toBe(4);
    expect(isAlive(run.grandchild)).toBe(false);
    expect(isAlive(run.agentPid)).toBe(false);
  }, 60_000);

  test("an iteration timeout: the attempt's setsid grandchild is gone before the next attempt starts", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const agent = fakeAgent([{ hangSec: 300, setsidGrandchild: true }, { hangSec: 300 }], tempDir("fake-agent-"));
    // 6 s: long enough for the agent to have left its grandchild behind on a loaded machine (a shorter limit
    // can end the attempt before the grandchild exists, and the test would prove nothing).
    const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--iteration-timeout", "0.1"], {
      cwd: repo,
      env: agent.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    const count = join(agent.dir, "count");
    await waitFor("the second attempt to start", () => readFileSync(count, "utf8") === "2", 30_000, { whileRunning: proc });
    const grandchild = Number(readFileSync(join(agent.dir, "setsid.pid"), "utf8"));
    expect(grandchild).toBeGreaterThan(1);
    expect(isAlive(grandchild)).toBe(false);
    await wtLoop(["stop"], { cwd: repo });
    expect(await proc.exited).toBe(4);
    expect(readState(repo).iterations[0].outcome).toBe("timeout");
  }, 60_000);

  test("force-quit (three stop requests): the runner exits at once and the agent's setsid grandchild with it", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const run = await startHanging(repo, undefined, { ignoreTerm: true }); // a graceful stop would take the whole grace
    await waitFor("the agent to ignore SIGTERM", () => existsSync(join(run.agentDir, "ignoring-term")));
    for (let i = 0; i < 3; i++) await deliver(run.proc.pid, "SIGTERM");
    expect(await run.proc.exited).toBe(130);
    expect(isAlive(run.grandchild)).toBe(false);
    expect(isAlive(run.agentPid)).toBe(false);
  }, 60_000);

  test("wt-loop stop --force during --verify: the verify command's setsid grandchild is gone too", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const dir = tempDir("verify-");
    const pidFile = join(dir, "verify.pid");
    const agent = fakeAgent([COMPLETE()], tempDir("fake-agent-"));
    const verify = `setsid -f sh -c 'echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; exec sleep 300'; sleep 300`;
    const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--verify", verify], {
      cwd: repo,
      env: agent.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    await waitFor("the verify command's setsid grandchild", () => existsSync(pidFile), 30_000, { whileRunning: proc });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(grandchild)).toBe(true);
    expect((await wtLoop(["stop", "--force"], { cwd: repo })).code).toBe(0);
    await proc.exited;
    await waitGone("the verify command's setsid grandchild", grandchild, 5000);
    expect(readState(repo).status).toBe("stopped");
  }, 60_000);

  test.each([["status"], ["stop"], ["start"]])(
    "runner killed with SIGKILL: `wt-loop %s` notices the death and ends the agent and its setsid grandchild",
    async (command) => {
      const repo = makeRepo({ "tasks.md": TASKS });
      const run = await startHanging(repo);
      run.proc.kill("SIGKILL");
      await run.proc.exited;
      expect(isAlive(run.grandchild)).toBe(true); // orphaned, in its own session: still editing the tree
      if (command === "start") {
        const again = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep"]);
        expect(again.code).toBe(0);
      } else {
        const r = await wtLoop([command], { cwd: repo });
        expect(r.stdout).toContain("no longer alive");
      }
      expect(isAlive(run.grandchild)).toBe(false);
      expect(isAlive(run.agentPid)).toBe(false);
    },
    60_000,
  );

  test("the compiled binary is the subreaper of its agents: an orphaned setsid grandchild becomes its child", async () => {
    const bin = buildBinary(tempDir("wt-loop-bin-"));
    const repo = makeRepo({ "tasks.md": TASKS });
    const run = await startHanging(repo, bin);
    const ppid = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${run.grandchild}/status`, "utf8"))?.[1];
    expect(Number(ppid)).toBe(run.proc.pid);
    expect((await wtLoop(["stop"], { cwd: repo, bin })).code).toBe(0);
    expect(await run.proc.exited).toBe(4);
    expect(isAlive(run.grandchild)).toBe(false);
  }, 120_000);
});
