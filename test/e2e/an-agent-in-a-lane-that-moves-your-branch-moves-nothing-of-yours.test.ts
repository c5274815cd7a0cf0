// `--parallel`: an agent in a lane can reach every branch of the repository (a lane is a linked worktree of
// it). One that switches to the user's branch and commits there has its attempt rejected — and, as one after
// another (the-loop-owns-its-branch.test.ts), the user's branch is put back where it was, not left at the
// agent's commit.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("an agent in a lane that moves your branch", () => {
  test("commits on the user's branch from its lane: rejected, retried, and the user's branch is back where it was", async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    const mainBefore = git(repo, "rev-parse", "main");
    const agent = laneAgent({
      "1": `if [ "$K" = 1 ]; then git checkout -q main && echo agent > agent.txt && git add agent.txt && git commit -qm "agent on main"; fi\n${TICK_AND_WRITE}`,
    });
    const r = await wtLoop(
      ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
      {
        cwd: repo,
        env: agent.env,
        timeoutMs: 180_000,
      },
    );
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect([r.code, state.status, state.reason]).toEqual([0, "done", state.reason]);
    expect(readFileSync(join(agent.dir, "prompt-1-2.txt"), "utf8")).toContain("main");
    expect(state.iterations.find((i) => i.story_id === "1" && i.outcome === "rejected")?.reason).toContain("put back");
    expect(git(repo, "rev-parse", "main")).toBe(mainBefore);
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
  }, 200_000);
});
