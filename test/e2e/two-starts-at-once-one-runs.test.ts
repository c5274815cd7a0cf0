// Two `start`s in the same worktree at the same moment: exactly one runs the loop, the other exits 1
// with a clear message and writes nothing (no archive, no state of its own). Repeated 20 times, each
// round in the same worktree, so the previous round's record is there to be archived (once).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { readState } from "../helpers/fixtures.ts";

const ROUNDS = 20;

describe("two starts at once: one runs", () => {
  test(`exactly one of two simultaneous starts runs, ${ROUNDS} times over`, async () => {
    const repo = makeRepo();
    // The agent takes a while, so the loser cannot arrive after the winner has finished.
    const agent = fakeAgent([{ promise: "COMPLETE", hangSec: 1.5 }], tempDir("fake-agent-"));
    const args = ["start", "Write the thing", "--done", "manual", "--terminal", "inline", "--on-complete", "keep"];
    const runsDir = join(repo, ".claude/loop-runs");
    for (let round = 1; round <= ROUNDS; round++) {
      const results = await Promise.all([wtLoop(args, { cwd: repo, env: agent.env }), wtLoop(args, { cwd: repo, env: agent.env })]);
      const codes = results.map((r) => r.code).sort();
      expect({ round, codes }).toEqual({ round, codes: [0, 1] });
      const loser = results.find((r) => r.code === 1)!;
      const winner = results.find((r) => r.code === 0)!;
      expect(loser.stderr).toMatch(/one loop runs per worktree|is being started|already running/);
      expect(loser.stderr).not.toContain("    at "); // no stack trace
      expect(loser.stdout).toBe("");
      expect(winner.stdout).toContain("Loop done");
      const state = readState(repo);
      expect(state).toMatchObject({ status: "done", runner_pid: null, completion: "keep" });
      // Only the winner archived the previous round's record.
      const archived = existsSync(runsDir) ? readdirSync(runsDir).filter((f) => f.endsWith(".json")) : [];
      expect({ round, archived: archived.length }).toEqual({ round, archived: round - 1 });
      expect(existsSync(join(repo, ".git/wt-loop.lock"))).toBe(false); // released (src/state/paths.ts lockPath)
    }
  }, 300_000);
});
