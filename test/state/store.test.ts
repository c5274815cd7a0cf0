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
    await expect(writeState(path, { ...sampleState(), current_iteration: -1 })).rejects.toThrow("invalid loop state: current_iteration is not a number in range");
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

describe("a state file that is not this worktree's own", () => {
  test("a state of another worktree (a .claude shared through a symlink) is refused, and left as it is", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    await writeState(path, sampleState({ worktree_path: "/somewhere/else" }));
    const before = readFileSync(path, "utf8");
    const err = await readState(path).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toContain('belongs to the worktree "/somewhere/else"');
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  test("a state in the seed's format (wt-tools' wt-loop: no schema_version) is read, not refused", async () => {
    const d = tempDir();
    const path = join(d, ".claude/loop-state.json");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(d, ".claude"));
    const seed = {
      worktree_name: "wt", task: "Implement auth", done_criteria: "tasks", max_iterations: 10, current_iteration: 2, status: "stalled",
      terminal_pid: 4242, started_at: "2026-11-01T10:00:00+01:00", capacity_limit_pct: 80, stall_threshold: 2, iteration_timeout_min: 45,
      total_tokens: 1500, total_input_tokens: 1000, label: null, change: "add-auth",
      iterations: [
        { n: 1, started: "2026-11-01T10:00:05+01:00", ended: "2026-11-01T10:10:00+01:00", done_check: false, commits: ["abc"], tokens_used: 1000,
          input_tokens: 800, output_tokens: 200, cache_read_tokens: 0, cache_create_tokens: 0, timed_out: false, log_file: "/x/ralph-iter-001.log" },
        { n: 2, started: "2026-11-01T10:10:05+01:00", ended: "2026-11-01T10:55:05+01:00", done_check: false, commits: [], tokens_used: 500, timed_out: true },
      ],
    };
    writeFileSync(path, JSON.stringify(seed));
    const s = (await readState(path))!;
    expect(s.status).toBe("stalled");
    expect(s.worktree_path).toBe(d);
    expect(s.runner_pid).toBeNull(); // a final status has no runner, whatever terminal_pid says
    expect(s.started_at).toBe("2026-11-01T09:00:00.000Z");
    expect(s.iterations.map((i) => [i.n, i.outcome, i.tokens_used, i.timed_out ?? false])).toEqual([[1, "no_signal", 1000, false], [2, "timeout", 500, true]]);
    expect(s.tokens.input).toBe(800);
    expect(s.change).toBe("add-auth");
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(seed)); // read, not rewritten
  });
});
