// `--parallel`: an agent in one lane runs `git worktree remove --force` on another lane's worktree (they are all
// worktrees of one repository). That attempt cannot go on (its story goes again: a-lane-removed-by-another-agent-goes-again); what it tells the user must be
// that — not "git is not installed", which sent them to reinstall git. Their work is untouched and no lane is left.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("an agent that removes another lane", () => {
  test("the loop says which folder is gone, not that git is missing; nothing of the user's is lost", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "README.md": "readme\n" });
    writeUserWork(repo);
    // Story 2's agent says where it runs and waits until its folder is gone; story 1's agent removes that folder.
    const agent = laneAgent({
      "1": `i=0; while [ ! -f "$D/where-2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; git worktree remove --force "$(cat "$D/where-2")"; : > "$D/removed"\n${TICK_AND_WRITE}`,
      "2": `pwd > "$D/where-2"; i=0; while [ ! -f "$D/removed" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n${TICK_AND_WRITE}`,
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
    const said = `${r.stdout}\n${r.stderr}\n${state.reason}`;
    expect(said).not.toContain("not installed");
    if (state.status !== "done") expect(state.reason).toContain("no longer exists");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("readme\nmine\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("my notes\n");
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/")).toBe("");
  }, 200_000);
});

function writeUserWork(repo: string) {
  writeFileSync(join(repo, "README.md"), "readme\nmine\n");
  writeFileSync(join(repo, "notes.txt"), "my notes\n");
}
