// A second run in the same worktree is judged on its own output only: each run has its own
// iteration logs (logs/<run>/iter-NNN.*), the first run's event log is archived with its state,
// and `monitor` shows the current run only.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runKey } from "../../src/state/paths.ts";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

describe("a second run in the same worktree starts fresh", () => {
  test("the second run's silent agent is no_signal, not the first run's COMPLETE; costs are not counted twice", async () => {
    const repo = makeRepo();
    const args = ["Write the thing", "--done", "manual", "--on-complete", "keep"];
    const first = await runLoop(repo, [{ promise: "COMPLETE", cost: 0.5 }], args);
    expect(first.code).toBe(0);
    expect(first.state.total_cost_usd).toBe(0.5);
    const firstLog = join(repo, ".claude/logs", runKey(first.state.started_at), "iter-001.jsonl");
    expect(first.state.iterations[0]!.log_file).toBe(firstLog);
    expect(readFileSync(firstLog, "utf8")).toContain("<promise>COMPLETE</promise>");

    // An agent that prints nothing at all, and the loop allows it one iteration.
    const second = await runLoop(repo, [{ promise: null, result: false }], [...args, "--max", "1"]);
    expect(second.code).toBe(2);
    expect(second.state.status).toBe("stuck");
    const it = second.state.iterations[0]!;
    expect(it.outcome).toBe("no_signal");
    expect(it.cost_usd).toBeNull();
    expect(second.state.total_cost_usd).toBe(0);
    expect(it.log_file).toBe(join(repo, ".claude/logs", runKey(second.state.started_at), "iter-001.jsonl"));
    expect(readFileSync(it.log_file, "utf8")).not.toContain("COMPLETE");
    expect(readFileSync(firstLog, "utf8")).toContain("<promise>COMPLETE</promise>"); // the first run's log is kept

    // The event log is the second run's only; the first one's is archived beside its state.
    const starts = second.events.filter((e) => e.type === "StoryProgress").length;
    expect(starts).toBe(1);
    expect(second.events.filter((e) => e.type === "Complete").map((e) => e.status)).toEqual(["stuck"]);
    const archived = join(repo, ".claude/loop-runs", runKey(first.state.started_at));
    expect(JSON.parse(readFileSync(`${archived}.json`, "utf8")).status).toBe("done");
    expect(readFileSync(`${archived}.events.jsonl`, "utf8")).toContain('"status":"done"');

    const monitor = await wtLoop(["monitor"], { cwd: repo, env: fakeAgent([], tempDir("fake-agent-")).env, timeoutMs: 20_000 });
    expect(monitor.code).toBe(2);
    expect(monitor.stdout).toContain("Loop stuck");
    expect(monitor.stdout).not.toContain("Loop done");
    expect(existsSync(join(repo, ".claude/logs/iter-001.jsonl"))).toBe(false);
  }, 60_000);
});
