import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../src/errors.ts";
import { readState, writeState } from "../../src/state/store.ts";
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
    await expect(writeState(path, { ...sampleState(), current_iteration: -1 })).rejects.toThrow(
      "invalid loop state: current_iteration is not a number in range",
    );
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
      worktree_name: "wt",
      task: "Implement auth",
      done_criteria: "tasks",
      max_iterations: 10,
      current_iteration: 2,
      status: "stalled",
      terminal_pid: 4242,
      started_at: "2026-11-01T10:00:00+01:00",
      capacity_limit_pct: 80,
      stall_threshold: 2,
      iteration_timeout_min: 45,
      total_tokens: 1500,
      total_input_tokens: 1000,
      label: null,
      change: "add-auth",
      iterations: [
        {
          n: 1,
          started: "2026-11-01T10:00:05+01:00",
          ended: "2026-11-01T10:10:00+01:00",
          done_check: false,
          commits: ["abc"],
          tokens_used: 1000,
          input_tokens: 800,
          output_tokens: 200,
          cache_read_tokens: 0,
          cache_create_tokens: 0,
          timed_out: false,
          log_file: "/x/ralph-iter-001.log",
        },
        { n: 2, started: "2026-11-01T10:10:05+01:00", ended: "2026-11-01T10:55:05+01:00", done_check: false, commits: [], tokens_used: 500, timed_out: true },
      ],
    };
    writeFileSync(path, JSON.stringify(seed));
    const s = (await readState(path))!;
    expect(s.status).toBe("stalled");
    expect(s.worktree_path).toBe(d);
    expect(s.runner_pid).toBeNull(); // a final status has no runner, whatever terminal_pid says
    expect(s.started_at).toBe("2026-11-01T09:00:00.000Z");
    expect(s.iterations.map((i) => [i.n, i.outcome, i.tokens_used, i.timed_out ?? false])).toEqual([
      [1, "no_signal", 1000, false],
      [2, "timeout", 500, true],
    ]);
    expect(s.tokens.input).toBe(800);
    expect(s.change).toBe("add-auth");
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(seed)); // read, not rewritten
  });
});

describe("a state write is on disk before it takes the state's name", () => {
  // Seen from the kernel (strace): without an fsync, a crash after the rename can leave an empty or
  // torn loop-state.json, which the next command refuses to read.
  test.each(["writeState", "writeStateSync"] as const)("%s: the temp file is fsynced, then renamed", async (fn) => {
    const d = tempDir();
    const trace = join(tempDir("strace-"), "trace.txt");
    const store = join(import.meta.dir, "../../src/state/store.ts");
    const { sampleState } = await import("../helpers/state.ts");
    const state = JSON.stringify(sampleState({ worktree_path: d }));
    const code = `const m = await import(${JSON.stringify(store)}); await m.${fn}(${JSON.stringify(join(d, ".claude/loop-state.json"))}, ${state});`;
    const r = Bun.spawnSync(["strace", "-f", "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2", "-o", trace, process.execPath, "-e", code]);
    expect(r.exitCode).toBe(0);
    const lines = readFileSync(trace, "utf8").split("\n");
    const open = lines.findIndex((l) => /openat\(.*loop-state\.json\.[^"]*\.tmp".*= \d+$/.test(l));
    expect(open).toBeGreaterThan(-1);
    const fd = /= (\d+)$/.exec(lines[open]!)![1];
    const sync = lines.findIndex((l, i) => i > open && new RegExp(`f(data)?sync\\(${fd}\\) += 0`).test(l));
    const rename = lines.findIndex((l) => /rename(at2?)?\(.*loop-state\.json\.[^"]*\.tmp"/.test(l));
    expect(sync).toBeGreaterThan(open);
    expect(rename).toBeGreaterThan(sync);
  });
});
