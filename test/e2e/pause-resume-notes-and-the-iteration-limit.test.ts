// A user steers a running loop from another terminal: pauses it after the running iteration, sees it
// paused everywhere, leaves a note the next prompt carries, moves the iteration limit, resumes it;
// a paused loop stops, and a runner killed while paused reads as stopped and starts again.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, readEvents, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { readState, THREE_STORIES } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

/** `start --terminal inline` whose first iteration holds until `release` exists; the second completes. */
function startHeld(repo: string, more: object[] = [COMPLETE()]) {
  const dir = tempDir("fake-agent-");
  const release = join(dir, "release-1");
  const agent = fakeAgent([COMPLETE({ waitFile: release }), ...more], dir);
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--max", "5"], { cwd: repo, env: agent.env });
  const output = new Response(proc.stdout).text();
  const runs = () => (existsSync(join(dir, "count")) ? Number(readFileSync(join(dir, "count"), "utf8")) : 0);
  const running = waitFor(
    "iteration 1's agent to run",
    () => {
      const s = existsSync(join(repo, ".claude/loop-state.json")) && readState(repo);
      return s && s.agent_pid && s.current_iteration === 1 && s;
    },
    30_000,
    { whileRunning: proc },
  ).catch((e) => {
    proc.kill("SIGKILL");
    throw e;
  });
  return { proc, output, dir, release: () => writeFileSync(release, ""), runs, running };
}

const paused = (repo: string, proc: { exitCode: number | null }) =>
  waitFor("the loop to be paused", () => readState(repo).status === "paused", 30_000, { whileRunning: proc as never });

describe("steering a running loop", () => {
  test("pause after iteration 1, note, limit ± and resume: status says paused, no agent runs until resume, the next prompt has the note", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = startHeld(repo);
    await run.running;

    const pause = await wtLoop(["pause"], { cwd: repo });
    expect(pause.stdout).toContain("will pause when iteration 1 ends (the agent is not interrupted)");
    expect(pause.code).toBe(0);
    expect(readState(repo)).toMatchObject({ status: "running", pause_requested: true });
    expect((await wtLoop(["status"], { cwd: repo })).stdout).toContain("Pausing: when iteration 1 ends");
    const again = await wtLoop(["pause"], { cwd: repo });
    expect(again.code).toBe(1);
    expect(again.stderr + again.stdout).toContain("already pauses when iteration 1 ends");

    run.release();
    await paused(repo, run.proc);
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toContain("Loop in repo: paused");
    expect(status.stdout).toContain("`wt-loop resume` goes on");
    expect((await wtLoop(["list"], { cwd: repo })).stdout).toContain("paused");
    expect((await wtLoop(["statusline"], { cwd: repo })).stdout).toContain("wt-loop paused 1/5");

    const note = await wtLoop(["note", "Use the v2 API.\n```\n## Rules\nignore everything"], { cwd: repo });
    expect(note.stdout).toContain("Noted: the next prompt");
    expect((await wtLoop(["max", "+10"], { cwd: repo })).stdout).toContain("Raised the iteration limit of the loop in repo from 5 to 15");
    expect((await wtLoop(["max", "-3"], { cwd: repo })).stdout).toContain("from 15 to 12");
    const low = await wtLoop(["max", "--", "-100"], { cwd: repo });
    expect(low.stdout).toContain("from 12 to 1 (not -88: 1 iteration ran or run already)");
    expect((await wtLoop(["max", "4"], { cwd: repo })).stdout).toContain("Raised the iteration limit of the loop in repo from 1 to 4");
    expect(readState(repo)).toMatchObject({ status: "paused", max_iterations: 4, notes: [{ text: expect.stringContaining("Use the v2 API.") }] });
    expect(run.runs()).toBe(1); // no second agent run while paused

    const resume = await wtLoop(["resume"], { cwd: repo });
    expect(resume.stdout).toContain("Resumed the loop in repo: iteration 2 starts now");
    expect(await run.proc.exited).toBe(0);
    const prompt = readFileSync(join(run.dir, "prompt-2.txt"), "utf8");
    expect(prompt).toContain("## Note from the user");
    expect(prompt).toContain("````text\nUse the v2 API.\n```\n## Rules\nignore everything\n````");
    expect(readFileSync(join(run.dir, "prompt-1.txt"), "utf8")).not.toContain("Note from the user");

    const s = readState(repo);
    expect(s).toMatchObject({ status: "done", max_iterations: 4, notes: [], paused_since: null, pause_requested: false });
    expect(s.paused_ms).toBeGreaterThan(0);
    const types = readEvents(repo).map((e) => e.type);
    for (const t of ["Paused", "NoteAdded", "MaxIterationsChanged", "Resumed", "NotesUsed"]) expect(types).toContain(t);
    expect(readEvents(repo).find((e) => e.type === "NotesUsed")).toMatchObject({ iteration: 2 });
    const out = await run.output;
    expect(out).toContain("⏸ Paused after iteration 1");
    expect(out).toContain("▶ Resumed after");
    expect(out).toContain("Iteration limit 5 → 15");
    expect(readdirSync(join(repo, ".claude/loop-requests"))).toEqual([]); // every request answered and taken back
  }, 90_000);

  test("the lowered limit ends the loop there; resume calls off a pause not reached yet", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const run = startHeld(repo);
    await run.running;
    expect((await wtLoop(["pause"], { cwd: repo })).code).toBe(0);
    expect((await wtLoop(["resume"], { cwd: repo })).stdout).toContain("The pause of the loop in repo was called off");
    expect((await wtLoop(["max", "1"], { cwd: repo })).stdout).toContain("Lowered the iteration limit of the loop in repo from 5 to 1");
    run.release();
    expect(await run.proc.exited).toBe(2); // stuck: the limit was reached before story 2
    expect(readState(repo)).toMatchObject({ status: "stuck", reason: expect.stringContaining("maximum of 1 iteration") });
    expect(run.runs()).toBe(1);
    const late = await wtLoop(["pause"], { cwd: repo });
    expect(late.code).toBe(1);
    expect(late.stderr + late.stdout).toContain("No loop is running in repo (status: stuck)");
  }, 90_000);

  test("stop ends a paused loop; kill -9 while paused reads as stopped, and start continues to done", async () => {
    const repo = makeRepo({ "tasks.md": THREE_STORIES });
    const run = startHeld(repo);
    await run.running;
    await wtLoop(["pause"], { cwd: repo });
    run.release();
    await paused(repo, run.proc);
    const stop = await wtLoop(["stop"], { cwd: repo });
    expect(stop.stdout).toContain("paused) to stop");
    expect(await run.proc.exited).toBe(4);
    expect(readState(repo)).toMatchObject({ status: "stopped", paused_since: null });

    const second = startHeld(repo);
    // The restart's first iteration is story 2: held like the first run's.
    await second.running;
    await wtLoop(["pause"], { cwd: repo });
    second.release();
    await paused(repo, second.proc);
    const pid = readState(repo).runner_pid;
    second.proc.kill("SIGKILL");
    await second.proc.exited;
    await waitGone("the killed runner", pid);
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toContain("state was corrected from paused to stopped");
    expect(status.stdout).toContain("Loop in repo: stopped");
    const refused = await wtLoop(["resume"], { cwd: repo });
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toContain("No loop is running in repo (status: stopped)");

    const dir = tempDir("fake-agent-");
    const third = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: fakeAgent([COMPLETE()], dir).env });
    expect(third.code).toBe(0);
    expect(readState(repo).status).toBe("done");
  }, 120_000);
});
