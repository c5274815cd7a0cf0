// You had uncommitted work, started `--parallel 2`, and stopped it with `wt-loop stop` while the lanes ran. The end
// of the loop compares the work you had with the tree it leaves; that comparison is part of the ending and must not
// be cut by the stop itself ("it could not be compared with the tree: git was not started: stop requested").
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("a stopped parallel run", () => {
  test("`stop` while lanes run: your work before the loop is measured, kept, and its ref released", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "README.md": "readme\n" });
    writeFileSync(join(repo, "README.md"), "readme\nmine\n");
    writeFileSync(join(repo, "notes.txt"), "my notes\n");
    const agent = laneAgent({}, `: > "$D/running-$S"; i=0; while [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "pipe", stderr: "pipe" });
    await waitFor("both lanes' agents", () => existsSync(join(agent.dir, "running-1")) && existsSync(join(agent.dir, "running-2")), 90_000, {
      whileRunning: proc,
    });
    const r = await wtLoop(["stop"], { cwd: repo });
    await proc.exited;
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect(`${r.stdout}${state.reason}`).not.toContain("could not be compared");
    expect(state.user_work).toBeNull(); // measured: the tree holds all of it, so its ref was released
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")).not.toContain("/before-");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("readme\nmine\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("my notes\n");
  }, 200_000);
});
