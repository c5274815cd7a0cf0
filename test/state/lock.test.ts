// The worktree's lock: exclusive, names its holder, taken over only when stale, handed over from
// `start` to the `run` of the same run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireLock, adoptLock, isHeld, readLock } from "../../src/state/lock.ts";
import { processStartTime, useProcessTable, type ProcMode } from "../../src/proc/pid.ts";
import { fakeRunner } from "../helpers/fake-runner.ts";
import { tempDir } from "../helpers/repo.ts";

const deadPid = () => {
  const p = Bun.spawnSync(["true"]);
  return p.pid;
};

// Through /proc (Linux) and through `ps`/`lsof` (what macOS has): a lock that is not held there lets a second run in.
describe.each(["proc", "ps"] as ProcMode[])("the worktree's lock (%s)", (mode) => {
  let before: ProcMode;
  beforeAll(() => {
    before = useProcessTable(mode);
  });
  afterAll(() => useProcessTable(before));

  test("a held lock refuses a second taker and names its holder", () => {
    const path = join(tempDir("lock-"), ".claude/loop.lock");
    const first = acquireLock(path, "run-1", "/nonexistent");
    expect("lock" in first).toBe(true);
    const second = acquireLock(path, "run-2", "/nonexistent");
    expect(second).toEqual({ holder: expect.objectContaining({ pid: process.pid, run: "run-1" }) });
    if ("lock" in first) first.lock.release();
    expect(existsSync(path)).toBe(false);
  });

  test("the stale lock of a dead runner is taken over; a damaged one too", () => {
    const path = join(tempDir("lock-"), "loop.lock");
    writeFileSync(path, JSON.stringify({ pid: deadPid(), started: "1", run: "old", handover_until: null }));
    const got = acquireLock(path, "new", "/nonexistent");
    expect("lock" in got && got.lock.info.run).toBe("new");
    expect(readLock(path)).toMatchObject({ pid: process.pid, run: "new", started: processStartTime(process.pid) });
    writeFileSync(path, ""); // a creator that died between create and write
    utimesSync(path, new Date(Date.now() - 5000), new Date(Date.now() - 5000));
    expect("lock" in acquireLock(path, "newer", "/nonexistent")).toBe(true);
  });

  test("a handed-over lock stays held after its holder exits, until the hand-over ends; the run of the same run adopts it", () => {
    const path = join(tempDir("lock-"), "loop.lock");
    const until = (ms: number) => new Date(Date.now() + ms).toISOString();
    writeFileSync(path, JSON.stringify({ pid: deadPid(), started: "1", run: "r", handover_until: until(60_000) }));
    expect(isHeld(readLock(path)!, "/nonexistent")).toBe(true);
    expect("holder" in acquireLock(path, "other", "/nonexistent")).toBe(true);
    expect(adoptLock(path, "other")).toBeNull(); // not its run
    const adopted = adoptLock(path, "r")!;
    expect(readLock(path)).toMatchObject({ pid: process.pid, run: "r", handover_until: null });
    adopted.release();
    // A window that never opened: once the hand-over has ended the lock is stale.
    writeFileSync(path, JSON.stringify({ pid: deadPid(), started: "1", run: "r", handover_until: until(-1) }));
    expect("lock" in acquireLock(path, "next", "/nonexistent")).toBe(true);
  });

  test("a lock naming a live process that is not a wt-loop runner of this worktree is stale, its start time notwithstanding", async () => {
    const worktree = tempDir("lock-wt-");
    const path = join(worktree, ".claude/loop.lock");
    const sleep = Bun.spawn(["sleep", "300"], { stdout: "ignore", stderr: "ignore" });
    try {
      mkdirSync(join(worktree, ".claude"));
      writeFileSync(path, JSON.stringify({ pid: sleep.pid, started: processStartTime(sleep.pid), run: "planted", handover_until: null }));
      const got = acquireLock(path, "mine", worktree);
      expect("lock" in got && got.lock.info.run).toBe("mine");
    } finally {
      sleep.kill(9);
    }
  });

  test("the lock of a runner of this worktree is held", async () => {
    const worktree = tempDir("lock-wt-");
    const path = join(worktree, ".claude/loop.lock");
    const runner = await fakeRunner(worktree);
    try {
      mkdirSync(join(worktree, ".claude"), { recursive: true });
      writeFileSync(path, JSON.stringify({ pid: runner.pid, started: processStartTime(runner.pid), run: "theirs", handover_until: null }));
      expect(acquireLock(path, "mine", worktree)).toEqual({ holder: expect.objectContaining({ pid: runner.pid, run: "theirs" }) });
    } finally {
      runner.kill(9);
    }
  });

  test("release removes only a lock that is still ours", () => {
    const path = join(tempDir("lock-"), "loop.lock");
    const got = acquireLock(path, "mine", "/nonexistent");
    if (!("lock" in got)) throw new Error("not acquired");
    writeFileSync(path, JSON.stringify({ pid: 1, started: null, run: "theirs", handover_until: null }));
    got.lock.release();
    expect(readLock(path)?.run).toBe("theirs");
  });
});

describe("where the lock is", () => {
  test("in the worktree's own git folder, out of reach of `git clean -fdx`: one per linked worktree", async () => {
    const { lockPath } = await import("../../src/state/paths.ts");
    const { git, makeRepo } = await import("../helpers/repo.ts");
    const { realpathSync } = await import("node:fs");
    const repo = makeRepo();
    expect(lockPath(repo)).toBe(join(repo, ".git/wt-loop.lock"));
    const linked = join(tempDir("linked-"), "wt");
    git(repo, "worktree", "add", "-q", linked);
    expect(realpathSync(join(lockPath(linked), ".."))).toBe(realpathSync(join(repo, ".git/worktrees/wt")));
    expect(lockPath(tempDir("no-git-"))).toEndWith(".claude/loop.lock");
  });
});
