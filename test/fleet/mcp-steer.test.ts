// The MCP tools that steer a running loop (pause_loop, resume_loop, add_note, set_max_iterations),
// through the SDK's own client on stdio: the same words back as `wt-loop pause|resume|note|max`, and
// a refusal as an answer with `ok: false`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, CLI, fakeAgent, spawnWtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { stopHard, repoWithWorktrees } from "../helpers/fleet.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let repo: ReturnType<typeof repoWithWorktrees>;
let client: Client;
let proc: ReturnType<typeof spawnWtLoop>;
let agentDir: string;
let wt: string;

beforeAll(async () => {
  repo = repoWithWorktrees(["wt-steer", "wt-idle"]);
  wt = repo.wt["wt-steer"]!;
  agentDir = tempDir("fake-agent-");
  const agent = fakeAgent([COMPLETE({ waitFile: join(agentDir, "release") }), COMPLETE()], agentDir);
  proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--max", "5"], { cwd: wt, env: agent.env, stdout: "ignore" });
  await waitFor(
    "iteration 1's agent to run",
    () => {
      const s = existsSync(join(wt, ".claude/loop-state.json")) && readState(wt);
      return s && s.agent_pid && s;
    },
    60_000,
    { whileRunning: proc },
  );
  client = new Client({ name: "wt-loop-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd: repo.main, env: baseEnv(), stderr: "pipe" }));
}, 120_000);
afterAll(async () => {
  await client?.close();
  if (proc?.exitCode === null) await stopHard(proc.pid, readState(wt).agent_pid);
});

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as any;

describe("steering through MCP", () => {
  test("pause_loop, add_note, set_max_iterations, resume_loop: the loop pauses, the note reaches the next prompt", async () => {
    const pause = await call("pause_loop", { worktree: "wt-steer" });
    expect(pause.structuredContent).toMatchObject({ ok: true, status: "running", message: expect.stringContaining("will pause when iteration 1 ends") });
    writeFileSync(join(agentDir, "release"), "");
    await waitFor("the loop to be paused", () => readState(wt).status === "paused", 30_000, { whileRunning: proc });
    const again = await call("pause_loop", { worktree: "wt-steer" });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({ ok: false, status: "paused", message: expect.stringContaining("already paused") });

    const note = await call("add_note", { worktree: "wt-steer", text: "Prefer small commits." });
    expect(note.structuredContent).toMatchObject({ ok: true, message: expect.stringContaining("Noted") });
    expect((await call("set_max_iterations", { worktree: "wt-steer", delta: 10 })).structuredContent).toMatchObject({ ok: true, max_iterations: 15 });
    expect((await call("set_max_iterations", { worktree: "wt-steer", value: 7 })).structuredContent).toMatchObject({
      ok: true,
      max_iterations: 7,
      message: expect.stringContaining("from 15 to 7"),
    });
    const both = await call("set_max_iterations", { worktree: "wt-steer", delta: 1, value: 3 });
    expect(both.structuredContent).toMatchObject({ ok: false, max_iterations: 7, message: expect.stringContaining("either `delta`") });
    const summary = await call("loop_status", { worktree: "wt-steer" });
    expect(summary.structuredContent.summary).toMatchObject({ status: "paused", max_iterations: 7 });

    const resume = await call("resume_loop", { worktree: "wt-steer" });
    expect(resume.structuredContent).toMatchObject({ ok: true, message: expect.stringContaining("Resumed the loop in wt-steer") });
    expect(await proc.exited).toBe(0);
    expect(readFileSync(join(agentDir, "prompt-2.txt"), "utf8")).toContain("```text\nPrefer small commits.\n```");
  }, 90_000);

  test("a worktree without a running loop: ok false with the reason", async () => {
    const r = await call("resume_loop", { worktree: "wt-idle" });
    expect(r.structuredContent).toMatchObject({ ok: false, status: null, message: expect.stringContaining("No loop has run here yet") });
  });
});
