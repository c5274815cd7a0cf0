// `--parallel`: while lanes run, you go on working in your own worktree — you edit a tracked file, create a new
// one, and append a story to tasks.md (docs/parallel.md says you may). The merge queue integrates lanes there;
// it must fold your edits into the loop branch as their own commit (as the sequential loop folds them into its
// next checkpoint), never end the loop stuck, never lose or revert them, and run the story you added.
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, spawnWtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("you edit your worktree while lanes run", () => {
  test("a tracked edit, a new file and an appended story: all kept, committed as yours, the new story runs, the loop ends done", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "notes.txt": "mine\n" });
    const hold = join(repo, "..", "hold");
    writeFileSync(hold, "");
    const agent = laneAgent(
      {},
      `[ "$S" = 3 ] || { : > "$D/running-$S"; i=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; }\n${TICK_AND_WRITE}`,
    );
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
    await waitFor("both lanes' agents", () => existsSync(join(agent.dir, "running-1")) && existsSync(join(agent.dir, "running-2")), 90_000, {
      whileRunning: proc,
    });
    writeFileSync(join(repo, "notes.txt"), "mine\nedited while lanes ran\n");
    writeFileSync(join(repo, "new-idea.txt"), "an untracked file of mine\n");
    appendFileSync(join(repo, "tasks.md"), "\n## 3. S3\n- [ ] 3.1 do\n");
    rmSync(hold);
    expect(await proc.exited).toBe(0);
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect([state.status, state.reason]).toEqual(["done", state.reason]);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("mine\nedited while lanes ran\n");
    expect(readFileSync(join(repo, "new-idea.txt"), "utf8")).toBe("an untracked file of mine\n");
    const tasks = readFileSync(join(repo, "tasks.md"), "utf8");
    expect(tasks).toContain("## 3. S3");
    expect(tasks).not.toContain("- [ ]");
    for (const s of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    // Your edits are on the branch as a commit of their own, and the worktree holds nothing uncommitted.
    expect(git(repo, "log", "--format=%s")).toContain("your changes in the worktree while lanes ran");
    expect(git(repo, "show", "HEAD:notes.txt")).toBe("mine\nedited while lanes ran");
    expect(git(repo, "show", "HEAD:new-idea.txt")).toBe("an untracked file of mine");
    expect(git(repo, "status", "--porcelain", "--untracked-files=all")).toBe("");
  }, 300_000);

  test("you switch your worktree to another branch: the loop ends stuck saying so, and no story shows ✓ that was never integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    const hold = join(repo, "..", "hold");
    writeFileSync(hold, "");
    const agent = laneAgent({}, `: > "$D/running-$S"; i=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n${TICK_AND_WRITE}`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "pipe", stderr: "pipe" });
    const out = new Response(proc.stdout).text();
    await waitFor("both lanes' agents", () => existsSync(join(agent.dir, "running-1")) && existsSync(join(agent.dir, "running-2")), 90_000, {
      whileRunning: proc,
    });
    git(repo, "switch", "-q", "-c", "elsewhere");
    rmSync(hold);
    expect(await proc.exited).not.toBe(0);
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect(state.status).toBe("stuck");
    expect(state.reason).toContain("not on the loop branch");
    expect(state.iterations.filter((it) => it.outcome === "complete")).toEqual([]);
    expect(await out).not.toMatch(/✓ \d\. S/);
  }, 300_000);
});
