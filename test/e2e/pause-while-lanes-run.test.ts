// `wt-loop pause` while lanes of --parallel run (docs/parallel.md, "How lanes run"): the running lanes finish and
// are integrated, no new lane opens, the loop reads `paused`; `wt-loop resume` goes on to the end.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const state = (repo: string) => readJson<State>(join(repo, ".claude/loop-state.json"));

test("pause while two lanes run: both finish and are integrated, the third story waits for resume, then the loop ends done", async () => {
  const repo = makeRepo({ "tasks.md": STORIES(3) });
  // Stories 1 and 2 hold until the test releases them; story 3 would run at once.
  const hold = `i=0; while [ ! -f "$D/release" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n`;
  const agent = laneAgent({ "1": hold + TICK_AND_WRITE, "2": hold + TICK_AND_WRITE });
  const proc = spawnWtLoop(
    ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
    {
      cwd: repo,
      env: agent.env,
    },
  );
  try {
    const started = (s: string) => existsSync(join(agent.dir, `start-${s}-1`));
    await waitFor("both lanes' agents to run", () => started("1") && started("2"), 60_000, { whileRunning: proc });
    const pause = await wtLoop(["pause"], { cwd: repo });
    expect([pause.code, pause.stdout]).toEqual([0, expect.stringContaining("will pause once its running lanes (stories 1, 2) are finished and integrated")]);
    await waitFor("the pause to be recorded", () => state(repo).pause_requested, 30_000, { whileRunning: proc });
    writeFileSync(join(agent.dir, "release"), "");
    await waitFor("the loop to be paused", () => state(repo).status === "paused", 60_000, { whileRunning: proc });
    const s = state(repo);
    expect(s.lanes).toEqual([]); // the running lanes were finished, not cut
    for (const id of ["1", "2"]) expect(readFileSync(join(repo, `s${id}.txt`), "utf8")).toBe(`story ${id}\n`);
    expect(started("3")).toBe(false); // no lane opened while pausing or paused
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);

    const resume = await wtLoop(["resume"], { cwd: repo });
    expect(resume.code).toBe(0);
    expect(await proc.exited).toBe(0);
    expect(state(repo).status).toBe("done");
    expect(readFileSync(join(repo, "s3.txt"), "utf8")).toBe("story 3\n");
  } catch (e) {
    // The loop's own word on why it ended (once, in a clean-clone CI, it ended `stuck` within 1.4 s, before either agent ran).
    const s = existsSync(join(repo, ".claude/loop-state.json")) ? state(repo) : null;
    const said = s
      ? JSON.stringify({ status: s.status, reason: s.reason, iterations: s.iterations.map((i) => [i.story_id, i.outcome, i.reason]) })
      : "no state";
    throw new Error(`${(e as Error).message}\nThe loop's state: ${said}`);
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}, 240_000);
