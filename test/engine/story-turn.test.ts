// The start of each turn (engine/story-turn.ts): a heading edited while the loop runs so that it names an
// agent the loop cannot run ends the loop stuck naming it, before any attempt runs that agent.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine, tickStory } from "../helpers/engine.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

describe("a heading that comes to name an agent while the loop runs", () => {
  test("an unknown agent: stuck after the story that was running, naming the heading; no attempt at the story", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const edit = "sed -i 's/^## 2. Second story$/## 2. Second story (agent: cursor)/' tasks.md";
    const r = await runEngine(repo, [tickStory("1", edit)]);
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toStartWith(
      "The tasks file changed while the loop ran: `## 2. Second story (agent: cursor)` names the agent 'cursor', which wt-loop does not know " +
        "(the agents are claude, codex, gemini). Fix the name, or take the (agent: …) out. Then `wt-loop start` continues the loop.",
    );
    expect(r.state.iterations.map((i) => [i.story_id, i.outcome])).toEqual([["1", "complete"]]);
    expect(readFileSync(join(r.agentDir, "count"), "utf8").trim()).toBe("1");
  });

  test("the loop's own agent named in a heading runs as any story does", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES.replace("## 2. Second story", "## 2. Second story (agent: command)") });
    const r = await runEngine(repo, [tickStory("1"), tickStory("2")]);
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i) => [i.story_id, i.agent ?? null])).toEqual([
      ["1", null],
      ["2", null],
    ]);
  });
});
