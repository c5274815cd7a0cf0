// `status` and `list` on a real terminal (tmux) while the state file of a loop running stories in lanes
// (`--parallel`) is on disk, its runner alive: a line per lane, the stories in lanes, the stories not
// started with their prerequisites; `list` counts the lanes and shows no lane worktree as a row.
import { afterEach, expect } from "bun:test";
import { basename, join } from "node:path";
import { processStartTime } from "../../src/proc/pid.ts";
import { loopPaths } from "../../src/state/paths.ts";
import { writeState } from "../../src/state/store.ts";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { fakeRunner } from "../helpers/fake-runner.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { sampleLane, sampleState } from "../helpers/state.ts";
import { testWithTmux, Tmux } from "../helpers/tmux.ts";

const TASKS = "## 1. Schema\n- [ ] a\n\n## 2. Parser\n- [ ] b\n\n## 3. CLI (after 1, 2)\n- [ ] c\n\n## 4. Docs\n- [ ] d\n";
let tmux: Tmux | undefined;
let runner: ReturnType<typeof Bun.spawn> | undefined;
afterEach(() => {
  tmux?.kill();
  runner?.kill("SIGKILL");
});

testWithTmux(
  "status and list in a terminal while lanes are open",
  async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const laneDir = join(repo, ".git/wt-loop/lanes/repo-abc/1-1");
    git(repo, "worktree", "add", "-q", "-b", "wt-loop/lane/repo-abc/1-1", laneDir);
    runner = await fakeRunner(repo);
    const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
    await writeState(
      loopPaths(repo).state,
      sampleState({
        worktree_path: repo,
        worktree_name: basename(repo),
        tasks_file: join(repo, "tasks.md"),
        status: "running",
        ended_at: null,
        started_at: ago(600),
        runner_pid: runner.pid,
        runner_started: processStartTime(runner.pid),
        parallel: 3,
        current_iteration: 2,
        stories_total: 4,
        stories_completed: 0,
        planned_stories: [
          { id: "1", title: "Schema" },
          { id: "2", title: "Parser" },
          { id: "3", title: "CLI" },
          { id: "4", title: "Docs" },
        ],
        completion: null,
        current_story: { id: "4", title: "Docs", index: 4, attempt: 1 },
        lanes: [
          sampleLane("1", "Schema", { worktree: laneDir, agent_pid: 31337, started: ago(150) }),
          sampleLane("4", "Docs", { iteration: 2, status: "queued", agent_pid: null, started: ago(40) }),
        ],
      }),
    );
    tmux = new Tmux();
    const env = baseEnv({ TERM: "xterm-256color" });
    const status = tmux.start(repo, env, `${process.execPath} ${CLI} status`);
    expect(await tmux.exitCode(status)).toBe(0);
    const shown = tmux.capture(status);
    expect(shown).toMatch(/Loop in repo: running \(runner pid \d+\)/);
    expect(shown).toMatch(/Story:\s+0\/4 complete · in lanes: 1, 4/);
    expect(shown).toContain("Lanes: 2 open of --parallel 3");
    expect(shown).toMatch(/ 1\s+1\. Schema\s+1\/3\s+running\s+2m 3\ds\s+31337/);
    expect(shown).toMatch(/ 2\s+4\. Docs\s+1\/3\s+queued\s+4\ds\s+-/);
    expect(shown).toContain("Not started: 3. CLI (after 1, 2)");
    const list = tmux.window(repo, env, `${process.execPath} ${CLI} list`);
    expect(await tmux.exitCode(list)).toBe(0);
    const rows = tmux.capture(list);
    expect(rows).toMatch(/repo\s+main\s+running\s+0\/4 · 2 lanes\s+2\/30/);
    expect(rows).not.toContain("1-1");
    expect(rows).not.toContain("wt-loop/lane");
  },
  60_000,
);
