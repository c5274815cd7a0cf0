// `--parallel`: an agent deletes another lane's branch (`git update-ref -d`: every worktree shares the refs). The
// other lane's HEAD then names a branch with no commit. Measuring that lane's attempt failed on git's "(initial)"
// and ended the whole loop stuck with a raw git error; the lane's attempt is rejected instead and its story goes
// again, and the loop ends done with nothing of the user's lost and no lane left.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("an agent that deletes another lane's branch", () => {
  test("the robbed lane's attempt is rejected and goes again; the loop ends done", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "README.md": "readme\n" });
    writeFileSync(join(repo, "README.md"), "readme\nmine\n");
    // Story 2's agent says its branch and waits; story 1's agent deletes that branch, then both go on.
    const agent = laneAgent({
      "1": `i=0; while [ ! -f "$D/branch-2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; git update-ref -d "$(cat "$D/branch-2")"; : > "$D/deleted"\n${TICK_AND_WRITE}`,
      "2": `if [ "$K" = 1 ]; then git symbolic-ref HEAD > "$D/branch-2"; i=0; while [ ! -f "$D/deleted" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; fi\n${TICK_AND_WRITE}`,
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
    expect(state.iterations.filter((i) => i.story_id === "2").map((i) => i.outcome)).toEqual(["rejected", "complete"]);
    expect(state.iterations.find((i) => i.story_id === "2")?.reason).toContain("was deleted while HEAD was on it");
    for (const s of ["1", "2"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("readme\nmine\n");
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/")).toBe("");
  }, 200_000);
});
