// Following a loop from outside its runner (what `monitor` does, and what any other view of a
// running loop would do): followLoop gives the logged events as they come and how the loop ended,
// also when its runner died without a word.
import { describe, expect, test } from "bun:test";
import { followLoop } from "../../src/control/follow-loop.ts";
import type { Logged } from "../../src/record/events.ts";
import { loopPaths } from "../../src/state/paths.ts";
import { collect as collectOutput, fakeAgent, readEvents, spawnWtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const startInline = (repo: string, steps: object[]) => {
  const agent = fakeAgent(steps, tempDir("fake-agent-"));
  return spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
};

async function collect(follow: AsyncIterable<Logged>, onEach: (e: Logged) => void = () => {}): Promise<Logged[]> {
  const seen: Logged[] = [];
  for await (const e of follow) {
    seen.push(e);
    onEach(e);
  }
  return seen;
}

describe("followLoop", () => {
  test("waits for a loop, then gives every event the log gets, in order, and the loop's ending", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    let waited = 0;
    const follow = followLoop(loopPaths(repo), { onWaiting: () => waited++ });
    const seen = collect(follow);
    await waitFor("followLoop to wait for a loop", () => waited > 0); // following before the loop exists
    const run = startInline(repo, [COMPLETE({ messages: ["one"] }), COMPLETE({ messages: ["two"] })]);
    expect(await run.exited).toBe(0);
    const events = await seen;
    expect(waited).toBe(1);
    expect(await follow.ending).toEqual({ status: "done", note: null });
    expect(events.map((e) => e.type)).toEqual(readEvents(repo).map((e) => e.type));
    expect(events[0]!.type).toBe("LoopStarted");
    expect(events.at(-1)).toMatchObject({ type: "Complete", status: "done" });
  }, 60_000);

  test("a runner killed with SIGKILL: the dead runner is noticed and corrected, and the follow ends with a note", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = startInline(repo, [{ hangSec: 300, messages: ["working"] }]);
    const follow = followLoop(loopPaths(repo));
    const seen = collect(follow);
    await waitFor("the agent at work", () => readState(repo).agent_pid);
    run.kill("SIGKILL");
    const events = await seen;
    await run.exited;
    const ending = await follow.ending;
    expect(ending.status).toBe("stopped");
    expect(ending.note).toContain("is no longer alive; its state was corrected from running to stopped");
    expect(events.some((e) => e.type === "Complete")).toBe(false);
    expect(readState(repo).status).toBe("stopped");
  }, 60_000);

  test("stop() while waiting for a loop ends the follow at once, with no status", async () => {
    const follow = followLoop(loopPaths(makeRepo()));
    setTimeout(() => follow.stop(), 300);
    expect(await collect(follow)).toEqual([]);
    expect(await follow.ending).toEqual({ status: null, note: null });
  }, 60_000);
});

describe("monitor, through followLoop", () => {
  test("its loop's runner is killed: monitor says so, the state is corrected, and monitor exits 4 (stopped)", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = startInline(repo, [{ hangSec: 300, messages: ["working"] }]);
    const monitor = spawnWtLoop(["monitor"], { cwd: repo });
    const out = collectOutput(monitor.stdout);
    await waitFor("monitor to show the agent's message", () => out.text().includes("working"), 30_000, { whileRunning: monitor });
    run.kill("SIGKILL");
    await run.exited;
    expect(await monitor.exited).toBe(4);
    expect(await out.done).toContain("is no longer alive; its state was corrected from running to stopped");
    expect(readState(repo).status).toBe("stopped");
  }, 60_000);
});
