// A dead runner's state, corrected by whoever reads it next.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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
});
