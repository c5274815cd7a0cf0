// Which pids wt-loop treats as its own: a state or lock file can name any process, so only this
// worktree's runner (pid, start time and command line all matching) and that runner's agent count.
// Every check runs twice: through /proc (Linux) and through `ps`/`lsof` (what macOS has).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ownedBy, processStartTime, signalQuietly, useProcessTable, type ProcMode } from "../../src/proc/pid.ts";
import { fakeRunner } from "../helpers/fake-runner.ts";
import { makeRepo } from "../helpers/repo.ts";

const started: { kill(sig?: number): void }[] = [];
afterAll(() => {
  for (const p of started) p.kill(9);
});
const spawn = (argv: string[], cwd: string, detached = false) => {
  const p = Bun.spawn(argv, { cwd, stdin: "ignore", stdout: "ignore", stderr: "ignore", detached });
  started.push(p);
  return p;
};

describe.each(["proc", "ps"] as ProcMode[])("ownedBy (%s): the one answer to which processes wt-loop may signal", (mode) => {
  let before: ProcMode;
  beforeAll(() => {
    before = useProcessTable(mode);
  });
  afterAll(() => useProcessTable(before));

  test("this worktree's runner counts only with its start time, and only for this worktree", async () => {
    const repo = makeRepo();
    const runner = await fakeRunner(repo);
    started.push(runner);
    const t = processStartTime(runner.pid);
    expect(t).toMatch(mode === "ps" ? /^\w{3} \w{3} \d{1,2} \d\d:\d\d:\d\d \d{4}$/ : /^\d+$/); // lstart text, or clock ticks
    expect(ownedBy({ runner_pid: runner.pid, runner_started: t, worktree_path: repo })).toEqual({ runner: runner.pid, agentGroup: null, foreign: null });
    expect(ownedBy({ runner_pid: runner.pid, runner_started: null, worktree_path: repo })).toEqual({ runner: null, agentGroup: null, foreign: runner.pid });
    expect(ownedBy({ runner_pid: runner.pid, runner_started: "1", worktree_path: repo })).toMatchObject({ runner: null });
    expect(ownedBy({ runner_pid: runner.pid, runner_started: t, worktree_path: makeRepo() })).toMatchObject({ runner: null, foreign: runner.pid });
  });

  test("`start` runs a loop too (inline); another command of this CLI does not", async () => {
    const repo = makeRepo();
    const start = await fakeRunner(repo, "start");
    started.push(start);
    expect(ownedBy({ runner_pid: start.pid, runner_started: processStartTime(start.pid), worktree_path: repo }).runner).toBe(start.pid);
    const status = await fakeRunner(repo, "status");
    started.push(status);
    expect(ownedBy({ runner_pid: status.pid, runner_started: processStartTime(status.pid), worktree_path: repo })).toMatchObject({
      runner: null,
      foreign: status.pid,
    });
  });

  test("any other process, in the worktree and with its real start time, is not a runner", () => {
    const repo = makeRepo();
    const sleep = spawn(["sleep", "300"], repo);
    expect(ownedBy({ runner_pid: sleep.pid, runner_started: processStartTime(sleep.pid), worktree_path: repo })).toEqual({
      runner: null,
      agentGroup: null,
      foreign: sleep.pid,
    });
  });

  test("an agent counts only when our runner started it and its start time matches", async () => {
    const repo = makeRepo();
    const runner = await fakeRunner(repo);
    started.push(runner);
    const other = spawn(["sleep", "300"], repo, true); // leads its own group, but the runner did not start it
    const claim = { runner_pid: runner.pid, runner_started: processStartTime(runner.pid), worktree_path: repo, agent_pid: other.pid };
    expect(ownedBy({ ...claim, agent_started: processStartTime(other.pid) })).toEqual({ runner: runner.pid, agentGroup: null, foreign: other.pid });
    expect(ownedBy({ ...claim, agent_started: null })).toEqual({ runner: runner.pid, agentGroup: null, foreign: other.pid });
  });

  test("pid 1 is never ours, as runner or agent", () => {
    expect(ownedBy({ runner_pid: 1, runner_started: processStartTime(1), worktree_path: "/" })).toEqual({ runner: null, agentGroup: null, foreign: 1 });
    expect(ownedBy({ runner_pid: null, runner_started: null, agent_pid: 1, agent_started: processStartTime(1), worktree_path: "/" })).toEqual({
      runner: null,
      agentGroup: null,
      foreign: 1,
    });
  });
});

test("signalQuietly refuses 0, 1, -1 and what is not a pid; ignores a process already gone", () => {
  // Signal 0 only checks: the refusal must come before kill(2) is called at all.
  for (const pid of [0, 1, -1, -0, Number.NaN, 1.5]) expect(signalQuietly(pid, 0)).toBe(false);
  expect(signalQuietly(process.pid, 0)).toBe(true);
  const gone = Bun.spawnSync(["true"]).pid;
  expect(signalQuietly(gone, "SIGTERM")).toBe(false);
});
