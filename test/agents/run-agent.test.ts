// One agent run: whatever it started is gone when runAgent returns, and a consumer that fails is an error.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { command } from "../../src/agents/command.ts";
import { runAgent, type AgentRunOptions } from "../../src/agents/run-agent.ts";
import { HarnessError } from "../../src/errors.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { tempDir } from "../helpers/repo.ts";

const opts = (d: string, over: Partial<AgentRunOptions> = {}): AgentRunOptions => ({
  cwd: d,
  env: process.env,
  timeoutMs: 60_000,
  logPath: join(d, "iter-001.jsonl"),
  runTag: `${d}#test`,
  onEvent: () => {},
  ...over,
});
const agent = (cmd: string) => ({ prompt: "", model: null, agentCmd: cmd });

describe("containment: nothing an agent started outlives its run", () => {
  test("a setsid grandchild is gone the moment a timed-out run returns", async () => {
    const d = tempDir();
    const run = await runAgent(command, agent(`setsid sleep 300 & echo $! > ${d}/pid; sleep 300`), opts(d, { timeoutMs: 500 }));
    expect(run.end).toBe("timeout");
    const pid = Number(readFileSync(join(d, "pid"), "utf8"));
    expect(isAlive(pid)).toBe(false); // not "soon": already, so the revert that follows cannot race it
  });

  test("a leftover that ignores SIGTERM and keeps writing makes no write after the run returns", async () => {
    const d = tempDir();
    const writer = `setsid sh -c 'trap "" TERM; echo $$ > ${d}/pid; while :; do echo x >> ${d}/late.txt; sleep 0.05; done' &`;
    const run = await runAgent(command, agent(`${writer} while [ ! -s ${d}/late.txt ]; do sleep 0.05; done; echo out`), opts(d));
    expect(run.end).toBe("exit");
    const size = statSync(join(d, "late.txt")).size;
    expect(isAlive(Number(readFileSync(join(d, "pid"), "utf8")))).toBe(false);
    await Bun.sleep(300);
    expect(statSync(join(d, "late.txt")).size).toBe(size);
  });

  test("a grandchild that cleared its environment and left the group is still found (subreaper)", async () => {
    const d = tempDir();
    // env -i: no run tag; setsid: another group; its parent exits, so it is orphaned to the runner.
    const run = await runAgent(
      command,
      agent(`env -i setsid sh -c 'echo $$ > ${d}/pid; exec sleep 300' & while [ ! -s ${d}/pid ]; do sleep 0.05; done`),
      opts(d),
    );
    expect(run.end).toBe("exit");
    expect(isAlive(Number(readFileSync(join(d, "pid"), "utf8")))).toBe(false);
  });
});

describe("a failing consumer of the agent's output", () => {
  test("is a HarnessError naming the failure, and the agent is ended at once", async () => {
    const d = tempDir();
    const t0 = Date.now();
    const err = await runAgent(
      command,
      // The pid is written before the first line: the line ends the agent, which may come before a later write.
      agent(`echo $$ > ${d}/pid; echo first; sleep 300`),
      opts(d, {
        onEvent: () => {
          throw new Error("renderer exploded");
        },
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect(err.message).toContain("renderer exploded");
    expect(err.message).toContain(join(d, "iter-001.jsonl"));
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(isAlive(Number(readFileSync(join(d, "pid"), "utf8")))).toBe(false);
  });
});
