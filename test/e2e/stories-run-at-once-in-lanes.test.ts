// `wt-loop start --parallel N` as a user runs it (docs/parallel.md): real git, a real agent program in each
// lane (test/helpers/lane-agent.ts) that edits files and prints the promise. Independent stories run at
// once; a verify that fails only on the integrated tree sends the story round again; a kill -9 of the runner
// in a lane or in an integration, then `start` again, ends done with nothing lost and no lane left.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAlive } from "../../src/proc/pid.ts";
import { join } from "node:path";
import { collect, fakeAgent, readEvents, readJson, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE, WAIT_FOR_STARTS, type LaneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = (n: number) => "# Tasks\n\n" + Array.from({ length: n }, (_, i) => `## ${i + 1}. S${i + 1}\n- [ ] ${i + 1}.1 do\n`).join("\n");
const state = (repo: string) => readJson<State>(join(repo, ".claude/loop-state.json"));
const stamp = (agent: LaneAgent, what: string) => Number(readFileSync(join(agent.dir, what), "utf8"));

function start(repo: string, agent: LaneAgent, more: string[] = []) {
  return wtLoop(["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", ...more], {
    cwd: repo,
    env: agent.env,
    timeoutMs: 180_000,
  });
}

/** Nothing of the lanes is left: one worktree, no lane branch, no loop process. */
function expectNoLanes(repo: string) {
  expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
  expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/")).toBe("");
  expect(state(repo).lanes).toEqual([]);
}

describe("stories run at once in lanes", () => {
  test("three independent stories under --parallel 3 overlap in time and are all integrated", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3) });
    const agent = laneAgent({}, WAIT_FOR_STARTS(3) + TICK_AND_WRITE);
    const r = await start(repo, agent, ["--parallel", "3"]);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    // Every story started before any ended: they ran at the same time.
    const firstEnd = Math.min(...["1", "2", "3"].map((s) => stamp(agent, `end-${s}-1`)));
    for (const s of ["1", "2", "3"]) expect(stamp(agent, `start-${s}-1`)).toBeLessThan(firstEnd);
    for (const s of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    expect(readEvents(repo).filter((e) => e.type === "Lane" && e.step === "integrated").length).toBe(3);
    expectNoLanes(repo);
  }, 200_000);

  test("a verify that fails only on the integrated tree sends the story again on the new head, with its output", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(2) });
    // Each story passes alone; together story 2's file must say it knows story 1.
    const verify = `if [ -f s1.txt ] && [ -f s2.txt ]; then grep -q knows-1 s2.txt || { echo 's2.txt does not know story 1'; exit 1; }; fi`;
    const agent = laneAgent({
      "2":
        `if [ "$K" = 1 ]; then i=0; while [ ! -f "${repo}/s1.txt" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; ${TICK_AND_WRITE}` +
        `else [ -f s1.txt ] && echo knows-1 > "$D/seen"; ${TICK_AND_WRITE.replace('echo "story $S" > "s$S.txt"', 'echo "story $S knows-1" > "s$S.txt"')}fi\n`,
    });
    const r = await start(repo, agent, ["--parallel", "2", "--verify", verify]);
    expect([r.code, state(repo).status]).toEqual([0, "done"]);
    const failed = readEvents(repo).find((e) => e.type === "Lane" && e.step === "verify_failed");
    expect(failed?.story_id).toBe("2");
    expect(readFileSync(join(agent.dir, "prompt-2-2.txt"), "utf8")).toContain("s2.txt does not know story 1");
    expect(existsSync(join(agent.dir, "seen"))).toBe(true); // its second lane was made from the new head
    expect(readFileSync(join(repo, "s2.txt"), "utf8")).toBe("story 2 knows-1\n");
    expectNoLanes(repo);
  }, 200_000);

  for (const where of ["lane", "integration"] as const)
    test(`kill -9 of the runner during ${where === "lane" ? "a lane's agent" : "an integration"}, then start again: done, nothing lost, no lane left`, async () => {
      const repo = makeRepo({ "tasks.md": STORIES(3) });
      const hold = join(repo, "..", "hold");
      writeFileSync(hold, "");
      const held = join(repo, "..", "held");
      // Story 2's agent (a lane) or the verify on the integrated tree (the main worktree) waits while `hold` exists.
      const wait = `: > "${held}"; i=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n`;
      const agent = laneAgent(where === "lane" ? { "2": wait + TICK_AND_WRITE } : {});
      const verify = where === "integration" ? `if [ "$(pwd)" = "${repo}" ] && [ -f s2.txt ]; then ${wait.trim()}; fi` : "true";
      const args = [
        "start",
        "--plain",
        "--terminal",
        "inline",
        "--agent",
        "command",
        "--agent-cmd",
        agent.cmd,
        "--on-complete",
        "keep",
        "--parallel",
        "3",
        "--verify",
        verify,
      ];
      const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "pipe", stderr: "ignore" });
      const err = collect(proc.stdout); // what it said, should it end first
      await waitFor(`the ${where} to be reached`, () => existsSync(held), 90_000, { whileRunning: proc }).catch((e) => {
        throw new Error(`${e.message}: ${err.text().slice(-1500)}`);
      });
      const lanes = state(repo).lanes;
      expect(lanes.length).toBeGreaterThan(0);
      if (where === "integration") expect(lanes.some((l) => l.status === "integrating" && l.story_id === "2")).toBe(true);
      proc.kill("SIGKILL");
      await proc.exited;
      // Before the restart the killed run's lanes are still there; after it, none.
      expect(git(repo, "worktree", "list").split("\n").length).toBeGreaterThan(1);
      rmSync(hold);
      const r = await start(repo, agent);
      expect([r.code, state(repo).status, r.stderr.slice(-2000)]).toEqual([0, "done", r.stderr.slice(-2000)]);
      for (const s of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
      expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("- [ ]");
      expect(git(repo, "status", "--porcelain")).toBe("");
      expectNoLanes(repo);
    }, 240_000);

  test("`wt-loop stop --force` from another terminal kills every lane's agent; the next start closes the lanes and ends done", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(3) });
    const hold = join(repo, "..", "hold");
    writeFileSync(hold, "");
    const agent = laneAgent({}, `echo $$ > "$D/pid-$S-$K"\ni=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n${TICK_AND_WRITE}`);
    const args = ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
    const lanes = await waitFor(
      "two lanes with their agents",
      () => {
        const l = existsSync(join(repo, ".claude/loop-state.json")) ? state(repo).lanes : [];
        return l.length === 2 && l.every((x) => x.agent_pid !== null) ? l : null;
      },
      90_000,
      { whileRunning: proc },
    );
    const r = await wtLoop(["stop", "--force"], { cwd: repo });
    expect(r.code).toBe(0);
    await proc.exited;
    for (const l of lanes) await waitFor(`lane ${l.story_id}'s agent to be gone`, () => !isAlive(l.agent_pid!), 10_000);
    expect(r.stdout).toContain("agent groups");
    rmSync(hold);
    const again = await start(repo, agent);
    expect([again.code, state(repo).status]).toEqual([0, "done"]);
    for (const s of ["1", "2", "3"]) expect(readFileSync(join(repo, `s${s}.txt`), "utf8")).toBe(`story ${s}\n`);
    expectNoLanes(repo);
  }, 240_000);

  test("--max-cost counts every lane: once reached no lane opens, the running one finishes and is integrated, the loop stops (budget)", async () => {
    const repo = makeRepo({ "tasks.md": STORIES(4) });
    const release = join(repo, "..", "release");
    // The fake claude (test/fixtures/bin) reports $1 a run; both first runs wait until both lanes' agents run.
    const agent = fakeAgent([{ waitFile: release, tick: "story", promise: "COMPLETE", cost: 1 }], join(repo, "..", "claude-agent"));
    const proc = spawnWtLoop(["start", "--plain", "--terminal", "inline", "--on-complete", "keep", "--parallel", "2", "--max-cost", "1"], {
      cwd: repo,
      env: agent.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    await waitFor(
      "two lanes with their agents",
      () => {
        const l = existsSync(join(repo, ".claude/loop-state.json")) ? state(repo).lanes : [];
        return l.length === 2 && l.every((x) => x.agent_pid !== null);
      },
      90_000,
      { whileRunning: proc },
    );
    writeFileSync(release, "");
    expect(await proc.exited).not.toBe(0);
    const s = state(repo);
    expect([s.status, s.stop_reason]).toEqual(["stopped", "budget"]);
    expect(s.total_cost_usd).toBe(2); // both lanes' runs, and no third
    expect(s.iterations.map((i) => i.outcome)).toEqual(["complete", "complete"]);
    expect(readFileSync(join(repo, "tasks.md"), "utf8").match(/- \[x\]/g)?.length).toBe(2); // both integrated
    expectNoLanes(repo);
  }, 240_000);
});
