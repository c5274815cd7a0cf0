// The small words of the output agree with the facts: "1 attempt", not "1 attempts"; a terminal that
// reports no width still gets a table; a duration that includes waiting for the agent says so.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { writeState } from "../../src/state/store.ts";
import { CLI, wtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo } from "../helpers/repo.ts";
import { sampleIteration, sampleState } from "../helpers/state.ts";
import { Tmux, testWithTmux } from "../helpers/tmux.ts";

async function repoWithIterations(iterations = [sampleIteration(1), sampleIteration(2, { outcome: "complete" })]) {
  const repo = makeRepo();
  await writeState(join(repo, ".claude/loop-state.json"), sampleState({ worktree_path: repo, worktree_name: "repo", iterations }));
  return repo;
}

test("one of a thing is singular: the dry run's and the end's words", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. Only story\n- [ ] 1.1 Do it\n" });
  const dry = await wtLoop(["start", "--dry-run", "--max", "1", "--max-retries", "1", "--stall-threshold", "1"], { cwd: repo });
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain("1 iteration · 1 attempt per story · stalled after 1 iteration without progress");
  const r = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep"]);
  expect(r.code).toBe(0);
  expect(r.state.reason).toStartWith("The 1 story is complete");
});

test("history: an iteration that waited for the agent's service says its duration includes the wait", async () => {
  const waited = sampleIteration(1, { started: "2026-11-21T10:00:00.000Z", ended: "2026-11-21T11:00:05.000Z", unavailable: { runs: 2, waited_ms: 3_600_000 } });
  const repo = await repoWithIterations([waited, sampleIteration(2, { outcome: "complete" })]);
  const r = await wtLoop(["history"], { cwd: repo });
  expect(r.stdout).toContain("1h 00m incl. 1h 00m waiting");
  expect(r.stdout).toMatch(/Total: 2 iterations · 1h 01m \(incl\. 1h 00m waiting for the agent\) ·/);
});

const tmux = new Tmux();
afterAll(() => tmux.kill());

testWithTmux(
  "history in a terminal that reports a width of 0: the table at 80 columns, not a lone …",
  async () => {
    const repo = await repoWithIterations();
    const pane = tmux.start(repo, {}, `stty cols 0; ${process.execPath} ${CLI} history`);
    expect(await tmux.exitCode(pane)).toBe(0);
    const screen = tmux.capture(pane);
    expect(screen).toMatch(/^#\s+story\s+attempt\s+outcome/m);
    expect(screen).toContain("Total: 2 iterations");
  },
  60_000,
);

test("a remembered option that is refused says it was remembered, and how to choose another", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. Only story\n- [ ] 1.1 Do it\n" });
  await writeState(
    join(repo, ".claude/loop-state.json"),
    sampleState({ worktree_path: repo, worktree_name: "repo", status: "stopped", agent: "codex", tasks_file: join(repo, "tasks.md") }),
  );
  const r = await wtLoop(["start", "--dry-run"], { cwd: repo, env: { PATH: "/usr/bin:/bin:" + join(import.meta.dir, "../fixtures/bin") } });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("not installed");
  expect(r.stderr).toContain("--agent codex was remembered from the stopped run");
});
