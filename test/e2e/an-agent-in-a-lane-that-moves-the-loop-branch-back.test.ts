// `--parallel`: the loop's branch is checked out in your worktree, but an agent in a lane can still move it with
// `git update-ref` (every worktree shares the refs). Moved back, your worktree looks changed to git: the next
// integration stopped the loop with "the main worktree has changes the loop did not make" — your changes, it said
// — and the branch no longer held the loop's commits. The queue puts the branch back where it left it and goes on.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo, write } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("an agent in a lane that moves the loop branch back", () => {
  test("the branch is put back, the user is not blamed, every story is integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    write(repo, { "more.txt": "second commit\n" });
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "second");
    // Story 2's agent moves the loop branch one commit back, once story 1 is integrated (its commit on the branch).
    const agent = laneAgent({
      "2":
        `if [ "$K" = 1 ]; then i=0; while [ ! -f "${repo}/s1.txt" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; ` +
        `git update-ref refs/heads/ralph/repo "$(git rev-parse ralph/repo~1)"; fi\n${TICK_AND_WRITE}`,
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
    for (const s of ["1", "2"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "log", "--format=%s", "ralph/repo")).toContain("checkpoint: story 1");
  }, 200_000);
});
