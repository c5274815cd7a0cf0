// The engine's rules (SPEC §5–§6), driven through LoopDeps with real git and a scripted real agent.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { git, makeRepo } from "../helpers/repo.ts";

const THREE = "# Tasks\n\n## 1. One\n- [ ] 1.1 a\n\n## 2. Two\n- [ ] 2.1 b\n\n## 3. Three\n- [ ] 3.1 c\n";
const FAIL = "echo '<promise>FAILED: cannot do it</promise>'\n";

describe.each([["branch"], ["stash"]] as const)("engine rules (%s checkpoints)", (checkpoint) => {
  test("the attempts per story are a budget: exactly --max-retries attempts, then stuck naming the story", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, ["echo work > w.txt\n" + FAIL], { checkpoint, maxRetries: 3, stallThreshold: 5 });
    expect(r.state.status).toBe("stuck");
    expect(r.state.iterations.map((i) => [i.story_id, i.attempt, i.outcome])).toEqual([
      ["1", 1, "failed"],
      ["1", 2, "failed"],
      ["1", 3, "failed"],
    ]);
    expect(r.state.reason).toContain('Story 1 "One" failed after 3 attempts. Last reason: cannot do it');
    expect(r.events.filter((e) => e.type === "Error").length).toBe(1);
  });

  test("one attempt allowed: 'failed after 1 attempt'", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, ["echo work > w.txt\n" + FAIL], { checkpoint, maxRetries: 1, stallThreshold: 5 });
    expect(r.state.reason).toContain('Story 1 "One" failed after 1 attempt. Last reason');
  });

  test("stuck beats stalled when the same iteration exhausts the attempts and reaches the stall threshold", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, [FAIL], { checkpoint, maxRetries: 2, stallThreshold: 2 });
    expect(r.state.iterations.length).toBe(2);
    expect(r.state.iterations.every((i) => !i.progress)).toBe(true);
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain("Story 1");
  });

  test("no progress below the attempt budget ends stalled", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, [FAIL], { checkpoint, maxRetries: 5, stallThreshold: 2 });
    expect(r.state.status).toBe("stalled");
    expect(r.state.iterations.length).toBe(2);
  });

  test("an agent that deletes the unfinished stories does not get `done`: rejected, reverted, the stories come back", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const deleteRest = `cp tasks.md "$AGENT_DIR/tasks-before-$n.md"\nprintf '# Tasks\\n\\n## 1. One\\n- [x] 1.1 a\\n' > tasks.md\necho '<promise>COMPLETE</promise>'\n`;
    const r = await runEngine(repo, [deleteRest], { checkpoint, maxRetries: 2, stallThreshold: 5 });
    expect(r.state.status).toBe("stuck");
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "rejected"]);
    expect(r.state.iterations[0]!.reason).toContain('no longer has these stories of the plan: 2 "Two", 3 "Three"');
    expect(r.state.stories_total).toBe(3);
    expect(r.saved.some((s) => s.status === "done")).toBe(false);
    // The first rejection was reverted: the second attempt found the whole plan again, and was told why.
    expect(readFileSync(join(r.agentDir, "tasks-before-2.md"), "utf8")).toBe(THREE);
    expect(readFileSync(join(r.agentDir, "prompt-2.txt"), "utf8")).toContain("Do not remove or rename stories");
  });

  test("the same plan done properly ends done with every planned story complete", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, [tickStory("1"), tickStory("2"), tickStory("3")], { checkpoint });
    expect(r.state.status).toBe("done");
    expect([r.state.stories_completed, r.state.stories_total]).toEqual([3, 3]);
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["complete", "complete", "complete"]);
  });

  test("a stop during the agent run ends stopped, with the agent's work left in the tree", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, ["echo half > half.txt\necho started\nsleep 30\n"], {
      checkpoint,
      onEvent: (e, abort) => e.type === "StoryEvent" && e.event.type === "Message" && e.event.text === "started" && abort(),
    });
    expect(r.state.status).toBe("stopped");
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["stopped"]);
    expect(readFileSync(join(repo, "half.txt"), "utf8")).toBe("half\n");
  });

  test("a stop before the first iteration runs no agent", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    const r = await runEngine(repo, [tickStory("1")], { checkpoint, onEvent: (e, abort) => e.type === "StoryProgress" && abort() });
    expect(r.state.status).toBe("stopped");
    expect(r.state.iterations.every((i) => i.outcome === "stopped")).toBe(true);
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).toBe(THREE);
  });
});

describe("a plan the harness can check", () => {
  test("a story removed from the file between iterations ends the loop stuck, naming it (not done)", async () => {
    const repo = makeRepo({ "tasks.md": THREE });
    // The agent completes story 1 properly; then, before iteration 2, someone else removes stories 2
    // and 3 from the file.
    const r = await runEngine(repo, [tickStory("1"), tickStory("2")], {
      onEvent: (e) => e.type === "IterationEnd" && writeFileSync(join(repo, "tasks.md"), "# Tasks\n\n## 1. One\n- [x] 1.1 a\n"),
    });
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain('no longer has these stories of the plan: 2 "Two", 3 "Three"');
    expect(r.state.iterations.length).toBe(1);
    expect([r.state.stories_completed, r.state.stories_total]).toEqual([1, 3]);
  });

  test.each([["ignored by git"], ["outside the worktree"]])("a tasks file %s is refused at start", async (how) => {
    const repo = makeRepo({ "README.md": "x\n" });
    if (how === "ignored by git") {
      writeFileSync(join(repo, ".gitignore"), "tasks.md\n");
      writeFileSync(join(repo, "tasks.md"), THREE);
    } else {
      const outside = join(makeRepo(), "tasks.md");
      writeFileSync(outside, THREE);
      Bun.spawnSync(["ln", "-s", outside, join(repo, "tasks.md")]);
    }
    const err = await runEngine(repo, [tickStory("1")]).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(how === "ignored by git" ? "tasks.md is ignored by git" : "tasks.md lies outside this worktree");
    expect(git(repo, "branch", "--show-current")).toBe("main");
  });
});
