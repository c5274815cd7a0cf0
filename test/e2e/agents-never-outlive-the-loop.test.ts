// Containment as a user meets it: an agent's descendant that left its process group (setsid) does not
// survive a stop, and when the runner itself dies (kill -9, a closed window) whichever command notices
// the death ends what its agent left behind.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { baseEnv, buildBinary, CLI, fakeAgent, wtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

/** A loop whose first agent run leaves a setsid grandchild and hangs. */
async function startHanging(repo: string, bin?: string, step: object = {}) {
  const agent = fakeAgent([{ hangSec: 300, setsidGrandchild: true, ...step }], tempDir("fake-agent-"));
  const proc = Bun.spawn([...(bin ? [bin] : [process.execPath, CLI]), "start", "--terminal", "inline", "--on-complete", "keep"], {
    cwd: repo, env: baseEnv(agent.env), stdout: "ignore", stderr: "ignore",
  });
  const statePath = join(repo, ".claude/loop-state.json");
  const pidFile = join(agent.dir, "setsid.pid");
  for (let i = 0; i < 600; i++) {
    await Bun.sleep(50);
    if (!existsSync(pidFile) || !existsSync(statePath)) continue;
    const s = JSON.parse(readFileSync(statePath, "utf8"));
    if (s.agent_pid) return { proc, agentPid: s.agent_pid as number, grandchild: Number(readFileSync(pidFile, "utf8")) };
  }
  proc.kill("SIGKILL");
  throw new Error("the agent never started");
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
    const proc = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--on-complete", "keep", "--iteration-timeout", "0.02"], {
      cwd: repo, env: baseEnv(agent.env), stdout: "ignore", stderr: "ignore",
    });
    const count = join(agent.dir, "count");
    for (let i = 0; i < 1200 && !(existsSync(count) && readFileSync(count, "utf8") === "2"); i++) await Bun.sleep(25);
    const grandchild = Number(readFileSync(join(agent.dir, "setsid.pid"), "utf8"));
    expect(isAlive(grandchild)).toBe(false);
    await wtLoop(["stop"], { cwd: repo });
    expect(await proc.exited).toBe(4);
    const s = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
    expect(s.iterations[0].outcome).toBe("timeout");
  }, 60_000);

  test("force-quit (three stop requests): the runner exits at once and the agent's setsid grandchild with it", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const run = await startHanging(repo, undefined, { ignoreTerm: true }); // a graceful stop would take the whole grace
    await Bun.sleep(500); // the fake installs its SIGTERM handler right after writing setsid.pid
    for (let i = 0; i < 3; i++) {
      run.proc.kill("SIGTERM");
      await Bun.sleep(150); // signals sent at once would merge into one
    }
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
    const proc = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--on-complete", "keep", "--verify", verify], {
      cwd: repo, env: baseEnv(agent.env), stdout: "ignore", stderr: "ignore",
    });
    for (let i = 0; i < 600 && !existsSync(pidFile); i++) await Bun.sleep(50);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(grandchild)).toBe(true);
    expect((await wtLoop(["stop", "--force"], { cwd: repo })).code).toBe(0);
    await proc.exited;
    for (let i = 0; i < 100 && isAlive(grandchild); i++) await Bun.sleep(50);
    expect(isAlive(grandchild)).toBe(false);
    expect(JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8")).status).toBe("stopped");
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
