// `wt-loop statusline` as Claude Code calls it: the documented JSON on stdin, one short line out
// (or nothing when there is no loop), never an error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { processStartTime } from "../../src/proc/pid.ts";
import { fakeRunner } from "../helpers/fake-runner.ts";
import { writeState } from "../../src/state/store.ts";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { repoWithWorktrees, startHangingLoop } from "../helpers/fleet.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

/** The input Claude Code documents for a `statusLine` command. */
const claudeInput = (dir: string) =>
  JSON.stringify({
    hook_event_name: "Status",
    session_id: "abc123",
    transcript_path: "/tmp/transcript.json",
    cwd: dir,
    model: { id: "claude-opus-4-1", display_name: "Opus" },
    workspace: { current_dir: dir, project_dir: dir },
    version: "1.0.80",
    output_style: { name: "default" },
    cost: { total_cost_usd: 0.01, total_duration_ms: 45000, total_api_duration_ms: 2300, total_lines_added: 156, total_lines_removed: 23 },
  });

async function statusline(input: string, cwd = tempDir()) {
  const proc = Bun.spawn([process.execPath, CLI, "statusline"], { cwd, env: baseEnv(), stdin: new Blob([input]), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

let repo: ReturnType<typeof repoWithWorktrees>;
let running: Awaited<ReturnType<typeof startHangingLoop>>;
let sleeper: ReturnType<typeof Bun.spawn> | undefined;

beforeAll(async () => {
  repo = repoWithWorktrees(["wt-run", "wt-done", "wt-asking", "wt-none"]);
  const done = await runLoop(repo.wt["wt-done"]!, [COMPLETE()], ["--on-complete", "keep"]);
  if (done.code !== 0) throw new Error(done.stderr);
  running = await startHangingLoop(repo.wt["wt-run"]!);
}, 120_000);
afterAll(() => {
  running?.stop();
  sleeper?.kill("SIGKILL");
});

describe("wt-loop statusline", () => {
  test("a running loop: iteration and story, from a folder inside the worktree", async () => {
    const sub = join(repo.wt["wt-run"]!, "src");
    mkdirSync(sub, { recursive: true });
    const r = await statusline(claudeInput(sub));
    expect(r).toEqual({ stdout: "wt-loop 1/30 · story 1/2\n", stderr: "", code: 0 });
  });

  test("a running loop waiting on a usage limit says until when", async () => {
    const { statusLine } = await import("../../src/fleet/statusline.ts");
    const { clockTime } = await import("../../src/text/format.ts");
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const s = sampleState({
      status: "running",
      ended_at: null,
      current_iteration: 3,
      max_iterations: 10,
      current_story: { id: "2", title: "B", index: 2, attempt: 1 },
      runner_pid: process.pid,
      runner_started: processStartTime(process.pid),
      waiting: { reason: "limit", since: new Date().toISOString(), until },
    });
    expect(statusLine(s)).toBe(`wt-loop 3/10 · story 2/2 · waiting until ${clockTime(Date.parse(until))}`);
  });

  test("a finished loop: its final status", async () => {
    expect((await statusline(claudeInput(repo.wt["wt-done"]!))).stdout).toBe("wt-loop done\n");
  });

  // The final statuses are the state schema's (state/final.ts), not a list of the status line's own: a status
  // added there shows here too.
  test("every final status of the state format shows as itself, with no runner left", async () => {
    const { statusLine } = await import("../../src/fleet/statusline.ts");
    const { FINAL_STATUSES } = await import("../../src/state/final.ts");
    const lines = FINAL_STATUSES.map((status) => statusLine(sampleState({ status, runner_pid: null })));
    expect(lines).toEqual(FINAL_STATUSES.map((status) => `wt-loop ${status}`));
  });

  test("a loop whose runner waits on the keep/cleanup question says so", async () => {
    const wt = repo.wt["wt-asking"]!;
    sleeper = await fakeRunner(wt); // a runner of this worktree, by pid, start time and command line
    await writeState(
      join(wt, ".claude/loop-state.json"),
      sampleState({
        worktree_path: wt,
        worktree_name: "wt-asking",
        status: "stuck",
        completion: null,
        runner_pid: sleeper.pid,
        runner_started: processStartTime(sleeper.pid),
      }),
    );
    expect((await statusline(claudeInput(wt))).stdout).toBe("wt-loop stuck · keep or cleanup?\n");
  });

  test("nothing at all where there is no loop, outside any repository, or for input that is not JSON", async () => {
    expect(await statusline(claudeInput(repo.wt["wt-none"]!))).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(await statusline(claudeInput(tempDir()))).toEqual({ stdout: "", stderr: "", code: 0 });
    // Not JSON: the current directory decides.
    expect((await statusline("garbage", repo.wt["wt-done"]!)).stdout).toBe("wt-loop done\n");
  });

  test("the status line's code loads neither zod nor anything that runs git (it runs on every refresh of the bar)", async () => {
    const built = await Bun.build({ entrypoints: [join(import.meta.dir, "../../src/fleet/statusline.ts")], target: "bun" });
    const code = await built.outputs[0]!.text();
    expect(code).not.toContain("ZodError");
    expect(code).not.toContain("Bun.spawn");
    expect(code).toContain("loop-state.json");
  });

  test("a runner that died shows as such, without writing to the state", async () => {
    const wt = repo.wt["wt-asking"]!;
    await writeState(join(wt, ".claude/loop-state.json"), sampleState({ worktree_path: wt, status: "running", runner_pid: 2 ** 22 + 1, runner_started: "1" }));
    expect((await statusline(claudeInput(wt))).stdout).toBe("wt-loop stopped (runner died)\n");
  });
});
