// `--parallel`: an agent in one lane runs `git worktree remove --force` on another lane's worktree. That lane's
// attempt cannot go on, but the loop can: the attempt is recorded (not complete, saying its folder went) and the
// story goes again in a fresh lane, as after any failed attempt — not the whole loop ending stuck.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("a lane removed by another agent", () => {
  test("its story's attempt is recorded as failed and the story goes again; the loop ends done", async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    // Story 2's first agent says where it runs and waits until its folder is gone; story 1's agent removes that folder.
    const agent = laneAgent({
      "1": `i=0; while [ ! -f "$D/where-2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; git worktree remove --force "$(cat "$D/where-2")"; : > "$D/removed"\n${TICK_AND_WRITE}`,
      "2": `if [ "$K" = 1 ]; then pwd > "$D/where-2"; i=0; while [ ! -f "$D/removed" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; fi\n${TICK_AND_WRITE}`,
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
    expect([state.status, state.reason, r.code]).toEqual(["done", state.reason, 0]);
    const twos = state.iterations.filter((it) => it.story_id === "2");
    expect(twos.map((it) => it.outcome)).toEqual([expect.not.stringMatching(/^complete$/), "complete"]);
    expect(twos[0]!.reason).toContain("was removed while the attempt ran");
    for (const s of ["1", "2"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
  }, 200_000);
});
