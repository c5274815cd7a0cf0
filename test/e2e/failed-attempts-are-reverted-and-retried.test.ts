// What a user sees when the agent fails, lies, crashes, hangs or makes no progress (SPEC §5–§6):
// the tree is put back, the next attempt is told why, and the loop ends with the right status.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { COMPLETE, runLoop as run } from "../helpers/loop.ts";
import { git, makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

const ONE_STORY = "## 1. Only story\n- [ ] 1.1 Do it\n- [ ] 1.2 Check it\n";

// Every path runs with both checkpoint strategies; `args` selects one.
describe.each([["branch"], ["stash"]])("failed attempts with %s checkpoints", (strategy) => {
  const cp = ["--checkpoint", strategy];
  const runLoop = (repo: string, steps: object[], args: string[] = [], env = {}) => run(repo, steps, [...cp, ...args], env);

  test("FAILED: the tree is reverted, the next prompt carries the reason, then success", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [
      {
        promise: "FAILED: the database is not running\nstart it first",
        write: { [join(repo, "half.txt")]: "half", [join(repo, ".claude/learnings.md")]: "- the db must run\n" },
      },
      COMPLETE({ write: { [join(repo, "whole.txt")]: "whole" } }),
    ]);
    expect(r.code).toBe(0);
    expect(existsSync(join(repo, "half.txt"))).toBe(false);
    expect(existsSync(join(repo, "whole.txt"))).toBe(true);
    // The loop's own files survive the revert.
    expect(readFileSync(join(repo, ".claude/learnings.md"), "utf8")).toBe("- the db must run\n");
    expect(existsSync(r.state.iterations[0]!.log_file)).toBe(true);
    expect(r.state.iterations[0]!.log_file).toStartWith(join(repo, ".claude/logs/"));
    expect(r.prompt(1)).not.toContain("Previous attempt failed");
    expect(r.prompt(2)).toContain("Previous attempt failed (attempt 2 of 3)");
    expect(r.prompt(2)).toContain("the database is not running\nstart it first");
    expect(r.state.iterations.map((i) => [i.outcome, i.attempt, i.progress])).toEqual([
      ["failed", 1, true],
      ["complete", 2, true],
    ]);
    expect(r.state.iterations[0]!.reason).toBe("the database is not running\nstart it first");
  });

  test("COMPLETE with a box left unticked is rejected by the harness and retried with the task named", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ tick: "all-but-one", promise: "COMPLETE" }, COMPLETE()]);
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "complete"]);
    expect(r.state.iterations[0]!.reason).toContain('"1.2 Check it"');
    expect(r.prompt(2)).toContain('these tasks of story 1 are not ticked in the tasks file: "1.2 Check it"');
    // The rejected attempt's ticks were reverted before the retry.
    expect(r.prompt(2)).toContain("- [ ] 1.1 Do it");
  });

  test("a promise quoted inside a tool result does not count", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ tick: "story", quoteInToolResult: true, promise: null, final: "I read the notes." }, COMPLETE()]);
    expect(r.state.iterations[0]!.outcome).toBe("no_signal");
    expect(r.state.status).toBe("done");
  });

  test("no_signal (crash, no result): reverted, and the retry carries no extra context", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ write: { [join(repo, "junk.txt")]: "x" }, result: false, exit: 1 }, COMPLETE()]);
    expect(r.code).toBe(0);
    expect(r.state.iterations[0]).toMatchObject({ outcome: "no_signal", exit_code: 1 });
    expect(r.prompt(2)).not.toContain("Previous attempt failed");
    expect(existsSync(join(repo, "junk.txt"))).toBe(false);
  });

  test("a revert also undoes commits the agent made, and leaves ignored files alone", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY, ".gitignore": "*.local\n" });
    Bun.write(join(repo, "secrets.local"), "keep me");
    const before = git(repo, "rev-parse", "HEAD");
    const r = await runLoop(repo, [
      { write: { [join(repo, "bad.txt")]: "bad", [join(repo, "cache.local")]: "ignored" }, commit: "agent commit", promise: "FAILED: wrong approach" },
      COMPLETE(),
    ]);
    expect(r.code).toBe(0);
    const subjects = git(repo, "log", "--format=%s", `${before}..HEAD`);
    expect(subjects).not.toContain("agent commit");
    expect(existsSync(join(repo, "bad.txt"))).toBe(false);
    expect(readFileSync(join(repo, "secrets.local"), "utf8")).toBe("keep me");
    expect(readFileSync(join(repo, "cache.local"), "utf8")).toBe("ignored");
    expect(r.state.iterations[0]!.commits).toHaveLength(1); // the agent's commit, recorded before the revert
  });

  test("an agent commit in a completed story is kept", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [COMPLETE({ write: { [join(repo, "x.txt")]: "x" }, commit: "agent: x" })]);
    expect(r.code).toBe(0);
    if (strategy === "branch") {
      expect(git(repo, "log", "--format=%s", "-2").split("\n")).toEqual(["checkpoint: story 1 — Only story", "agent: x"]);
      expect(r.state.iterations[0]!.commits).toHaveLength(2);
    } else {
      expect(git(repo, "log", "--format=%s", "-1")).toBe("agent: x");
      expect(r.state.iterations[0]!.commits).toEqual([git(repo, "rev-parse", "HEAD")]);
    }
  });

  test("the iteration timeout kills the agent and its grandchild, records timed_out, and retries with the reason", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ hangSec: 120, grandchild: true, write: { [join(repo, "slow.txt")]: "s" } }, COMPLETE()], ["--iteration-timeout", "0.03"]);
    expect(r.code).toBe(0);
    expect(r.state.iterations[0]).toMatchObject({ outcome: "timeout", timed_out: true });
    expect(r.state.iterations[1]!.timed_out).toBeUndefined();
    expect(r.prompt(2)).toContain("exceeded the iteration timeout of 0.03 min");
    const grandchild = Number(readFileSync(join(r.agentDir, "grandchild.pid"), "utf8"));
    expect(isAlive(grandchild)).toBe(false);
    expect(existsSync(join(repo, "slow.txt"))).toBe(false);
  }, 60_000);

  test("attempts exhausted: stuck (exit 2), an Error event, the last attempt's changes left for inspection", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const steps = [1, 2, 3].map((i) => ({ promise: `FAILED: try ${i} broke`, write: { [join(repo, `try${i}.txt`)]: String(i) } }));
    const r = await runLoop(repo, steps, ["--max-retries", "3"]);
    expect(r.code).toBe(2);
    expect(r.state.status).toBe("stuck");
    expect(r.calls()).toBe(3);
    const err = r.events.find((e) => e.type === "Error");
    expect(err.message).toBe('Story 1 "First story" failed after 3 attempts. Last reason: try 3 broke');
    expect(existsSync(join(repo, "try1.txt"))).toBe(false);
    expect(existsSync(join(repo, "try3.txt"))).toBe(true);
    expect(r.state.iterations.every((i) => i.story_id === "1")).toBe(true);
    expect(r.events.at(-1)).toMatchObject({ type: "Complete", status: "stuck" });
  });

  test("no progress for stall-threshold iterations: stalled (exit 3)", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ promise: null, final: "thinking…" }], ["--stall-threshold", "2", "--max-retries", "5"]);
    expect(r.code).toBe(3);
    expect(r.state.status).toBe("stalled");
    expect(r.state.iterations).toHaveLength(2);
    expect(r.state.iterations.every((i) => !i.progress)).toBe(true);
  });

  test("--max reached before done: stuck with the reason", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [COMPLETE()], ["--max", "1"]);
    expect(r.code).toBe(2);
    expect(r.state).toMatchObject({ status: "stuck", current_iteration: 1 });
    expect(r.state.reason).toContain("maximum of 1 iteration");
  });

  test("manual mode: a no_signal run that changed files is committed as progress; COMPLETE ends it", async () => {
    const repo = makeRepo();
    const r = await runLoop(
      repo,
      [
        { promise: null, write: { [join(repo, "step1.txt")]: "1" } },
        { promise: "FAILED: oops", write: { [join(repo, "bad.txt")]: "b" } },
        { promise: "COMPLETE", write: { [join(repo, "step2.txt")]: "2" } },
      ],
      ["--done", "manual", "Build it"],
    );
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["no_signal", "failed", "complete"]);
    if (strategy === "branch")
      expect(git(repo, "log", "--format=%s", "main..HEAD").split("\n")).toEqual(["checkpoint: story 1 — Build it", "checkpoint: iteration 1", "initial state"]);
    // The failed attempt was reverted to the kept progress of iteration 1, not to the start.
    expect(existsSync(join(repo, "bad.txt"))).toBe(false);
    expect(readFileSync(join(repo, "step1.txt"), "utf8")).toBe("1");
    expect(readFileSync(join(repo, "step2.txt"), "utf8")).toBe("2");
  });
});
