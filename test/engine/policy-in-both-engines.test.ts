// One policy (src/engine/policy.ts) for the sequential engine and the scheduler of lanes: where the two used to
// decide differently, they now decide alike (docs/architecture.md, "Where the two engines used to differ").
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import type { LoopEvent } from "../../src/record/events.ts";

const ONE = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n";

describe("a stop that comes as the last story is kept ends the loop stopped, its work kept", () => {
  test("one story after another: the stop comes once the attempt is recorded", async () => {
    const repo = makeRepo({ "tasks.md": ONE });
    const r = await runEngine(repo, [tickStory("1")], { onEvent: (e, abort) => e.type === "IterationEnd" && abort() });
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["complete"]);
    expect(r.state.status).toBe("stopped");
    expect(r.state.stop_reason).toBe("user");
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toContain("- [x] 1.1");
    expect(git(repo, "log", "--format=%s", "-1", r.state.checkpoint_branch!)).toContain("checkpoint: story 1");
  });
});

// The scheduler used to end such a loop `stuck` (the story gone), though the user had stopped it; one story after
// another it was `stopped`. Both are `stopped` now: the stop is what ended the loop, and the next start names the story.
describe("a stop that comes as a story of the plan is removed from the tasks file ends the loop stopped", () => {
  const TWO = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n\n## 2. Two (after 1)\n- [ ] 2.1 b\n";
  const stopAndRemoveTwo = (repo: string) => (e: LoopEvent, abort: () => void) => {
    if (e.type !== "IterationEnd") return;
    writeFileSync(join(repo, "tasks.md"), readFileSync(join(repo, "tasks.md"), "utf8").replace(/\n## 2\. [^]*$/, "\n"));
    abort();
  };

  test("one story after another", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const r = await runEngine(repo, ["echo half > half.txt\necho '<promise>FAILED: not yet</promise>'\n"], { onEvent: stopAndRemoveTwo(repo), maxRetries: 3 });
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["failed"]);
    expect([r.state.status, r.state.stop_reason, r.state.reason]).toEqual(["stopped", "user", expect.stringMatching(/^Stopped by the user/)]);
  });

  test("in lanes", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const agent = laneAgent({}, "echo half > half.txt\necho '<promise>FAILED: not yet</promise>'\n");
    const r = await runEngine(repo, [], { parallel: 2, agentCmd: agent.cmd, env: agent.env, onEvent: stopAndRemoveTwo(repo), maxRetries: 3 });
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["failed"]);
    expect([r.state.status, r.state.stop_reason, r.state.reason]).toEqual(["stopped", "user", expect.stringMatching(/^Stopped by the user/)]);
    expect(r.state.lanes).toEqual([]);
  }, 120_000);
});
