// `--parallel`: two stories edit the same lines. The second is accepted in its lane, then conflicts when it is
// replayed onto the loop branch, and goes again. Its first attempt's work never reached the loop branch, so
// `history`, the receipt's ✓ and the forecast must not count it as complete: it is rejected, with the conflict.
// The loop branch moved while that lane ran (story 1 was integrated), so the schedule caused the conflict: it
// costs story 2 no attempt (docs/parallel.md, "When the schedule causes a conflict") — the next one keeps number 1.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("an attempt that conflicts on integration", () => {
  test("is recorded rejected with the conflicting path, and the story's next attempt is the complete one", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "shared.txt": "one\ntwo\nthree\n" });
    // Story 2's first attempt ends only once story 1's change of the same line is integrated: it must conflict.
    const agent = laneAgent({
      "1": `printf 'one\\nS1\\nthree\\n' > shared.txt\n${TICK_AND_WRITE}`,
      "2": `if [ "$K" = 1 ]; then i=0; while ! grep -q S1 "${repo}/shared.txt" && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; printf 'one\\nS2\\nthree\\n' > shared.txt; fi\n${TICK_AND_WRITE}`,
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
    expect([r.code, state.status]).toEqual([0, "done"]);
    const of2 = state.iterations.filter((i) => i.story_id === "2").map((i) => [i.attempt, i.outcome]);
    expect(of2).toEqual([
      [1, "rejected"],
      [1, "complete"],
    ]);
    const rejected = state.iterations.find((i) => i.story_id === "2" && i.outcome === "rejected");
    expect(rejected?.reason).toContain("shared.txt");
    expect(rejected?.reason).toContain("Not counted as an attempt");
    const history = await wtLoop(["history"], { cwd: repo });
    expect(history.stdout).toContain("rejected");
  }, 200_000);
});
