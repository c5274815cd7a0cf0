// `--parallel`: while lanes run, something in your worktree rewrites a tracked file with the same content (an
// editor's save, a formatter with nothing to do, `touch`). Its content is unchanged, so the tree is clean; only
// git's cached stat data is stale. The integration must not take that for a change and end the loop stuck
// ("Entry 'tasks.md' not uptodate. Cannot merge.").
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, spawnWtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("a file touched in your worktree while lanes run", () => {
  test("tasks.md saved unchanged while both lanes work: every lane is integrated, the loop ends done", async () => {
    const repo = makeRepo({ "tasks.md": STORIES });
    const hold = join(repo, "..", "hold");
    writeFileSync(hold, "");
    const agent = laneAgent({}, `: > "$D/running-$S"; i=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n${TICK_AND_WRITE}`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
    await waitFor("both lanes' agents", () => existsSync(join(agent.dir, "running-1")) && existsSync(join(agent.dir, "running-2")), 90_000, {
      whileRunning: proc,
    });
    const tasks = join(repo, "tasks.md");
    writeFileSync(tasks, readFileSync(tasks)); // the same bytes, a new mtime and ctime
    const later = new Date(Date.now() + 5000);
    utimesSync(tasks, later, later);
    rmSync(hold);
    expect(await proc.exited).toBe(0);
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect([state.status, state.reason]).toEqual(["done", state.reason]);
    expect(readFileSync(tasks, "utf8")).not.toContain("- [ ]");
  }, 200_000);
});
