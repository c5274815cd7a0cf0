import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../src/errors.ts";
import { State } from "../../src/state/schema.ts";
import { correctDeadRunner, readState, writeState } from "../../src/state/store.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

describe("state file", () => {
  test("round trip: what is written is read back equal, atomically (no temp file left)", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    const s = sampleState({ worktree_path: d });
    await writeState(path, s);
    expect(await readState(path)).toEqual(s);
    expect(readdirSync(join(d, ".claude"))).toEqual(["loop-state.json"]);
  });

  test("a missing file reads as null", async () => {
    expect(await readState(join(tempDir(), "nope.json"))).toBeNull();
  });

  test("non-JSON: a UserError naming the file, and the file is left as it was", async () => {
    const path = join(tempDir(), "loop-state.json");
    writeFileSync(path, "{ not json");
    const err = await readState(path).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(path);
    expect(err.message).toContain("not valid JSON");
    expect(readFileSync(path, "utf8")).toBe("{ not json");
  });

  test("schema-invalid: the message names every offending field", async () => {
    const path = join(tempDir(), "loop-state.json");
    const bad = { ...sampleState(), status: "sleeping", max_iterations: "ten" };
    const text = JSON.stringify(bad);
    writeFileSync(path, text);
    const err = await readState(path).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain(path);
    expect(err.message).toContain("→ at status");
    expect(err.message).toContain("→ at max_iterations");
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  test("writeState refuses to write an invalid state", async () => {
    const path = join(tempDir(), "s.json");
    await expect(writeState(path, { ...sampleState(), current_iteration: -1 })).rejects.toThrow();
  });

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

  test("a running state whose runner is alive is left alone", async () => {
    const path = join(tempDir(), "s.json");
    const { processStartTime } = await import("../../src/state/pid.ts");
    const s = sampleState({ status: "running", runner_pid: process.pid, runner_started: processStartTime(process.pid) });
    await writeState(path, s);
    expect(await correctDeadRunner(path, s)).toBeNull();
    expect((await readState(path))!.status).toBe("running");
  });
});
