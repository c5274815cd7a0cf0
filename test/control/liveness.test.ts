// A dead runner's state, corrected by whoever reads it next.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { correctDeadRunner } from "../../src/control/liveness.ts";
import { State } from "../../src/state/schema.ts";
import { readState, writeState } from "../../src/state/store.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

describe("correctDeadRunner", () => {
  test("a running state whose runner is dead is corrected to stopped on disk", async () => {
    const path = join(tempDir(), "s.json");
    const dead = Bun.spawnSync(["true"]).pid; // exited already
    const s = sampleState({ status: "running", runner_pid: dead, runner_started: "1" });
    await writeState(path, s);
    const note = await correctDeadRunner(path, s);
    expect(note).toContain(`pid ${dead}`);
    const after = State.parse(JSON.parse(readFileSync(path, "utf8")));
    expect(after.status).toBe("stopped");
    expect(after.runner_pid).toBeNull();
  });

  test("a loop that ended and whose runner died while its completion question waited keeps its status; the question is cleared", async () => {
    const path = join(tempDir(), "s.json");
    const dead = Bun.spawnSync(["true"]).pid;
    const s = sampleState({ status: "done", completion: null, completion_pending: true, runner_pid: dead, runner_started: "1" });
    await writeState(path, s);
    expect(await correctDeadRunner(path, s)).toContain("while its completion question waited");
    const after = State.parse(JSON.parse(readFileSync(path, "utf8")));
    expect(after).toMatchObject({ status: "done", completion_pending: false, runner_pid: null, ended_at: s.ended_at });
  });

  test("a running state whose runner is alive is left alone", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    const { processStartTime } = await import("../../src/proc/pid.ts");
    const s = sampleState({ worktree_path: d, status: "running", runner_pid: process.pid, runner_started: processStartTime(process.pid) });
    await writeState(path, s);
    expect(await correctDeadRunner(path, s)).toBeNull();
    expect((await readState(path))!.status).toBe("running");
  });

  // The kill soak (seed 30, --parallel 2, round 29): a runner killed while it wrote its state leaves
  // `loop-state.json.<pid>.<hex>.tmp` (the write's temp file, before its rename); nothing removed it.
  test("the dead runner's half-written state file is removed; a live writer's is not", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    const dead = Bun.spawnSync(["true"]).pid;
    const s = sampleState({ worktree_path: d, status: "running", runner_pid: dead, runner_started: "1" });
    await writeState(path, s);
    const left = `${path}.${dead}.0123456789ab.tmp`;
    const live = `${path}.${process.pid}.ba9876543210.tmp`;
    // The kill soak (seed 31, --parallel 2, round 102): a prompt cut mid-write, in its run's folder of logs.
    const prompt = join(d, `.claude/logs/2026-11-28T22-47-52.544Z/iter-001.prompt.md.${dead}.00aa11bb22cc.tmp`);
    writeFileSync(left, '{"half');
    writeFileSync(live, '{"being written');
    mkdirSync(join(d, ".claude/logs/2026-11-28T22-47-52.544Z"), { recursive: true });
    writeFileSync(prompt, "half a prompt");
    expect(await correctDeadRunner(path, s)).toContain(`pid ${dead}`);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(prompt)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  // Issue 30.5: a runner found dead days later was recorded as ending when it was found (its run time
  // showed days). It ended, at the latest, at its last sign of life: the last write of its state or event log.
  test("a runner found dead days later is recorded as ending at its last sign of life, not at the discovery", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    const dead = Bun.spawnSync(["true"]).pid;
    const started = Date.now() - 3 * 86_400_000;
    const s = sampleState({
      worktree_path: d,
      status: "running",
      runner_pid: dead,
      runner_started: "1",
      ended_at: null,
      started_at: new Date(started).toISOString(),
      updated_at: new Date(started + 60_000).toISOString(),
    });
    await writeState(path, s);
    const lastEvent = new Date(started + 120_000);
    writeFileSync(join(d, ".claude/loop-events.jsonl"), "{}\n");
    utimesSync(join(d, ".claude/loop-events.jsonl"), lastEvent, lastEvent);
    utimesSync(path, new Date(started + 60_000), new Date(started + 60_000));
    await correctDeadRunner(path, s);
    const after = State.parse(JSON.parse(readFileSync(path, "utf8")));
    expect(after.status).toBe("stopped");
    expect(after.ended_at).toBe(lastEvent.toISOString());
  });
});
