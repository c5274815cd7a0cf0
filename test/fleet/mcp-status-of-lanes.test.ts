// The MCP server's status and list tools for a loop running stories in lanes (`--parallel`), through the
// SDK's own client: the state's lanes and the summary's, while a state with lanes is on disk.
import { afterAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { basename, join } from "node:path";
import { processStartTime } from "../../src/proc/pid.ts";
import { loopPaths } from "../../src/state/paths.ts";
import { writeState } from "../../src/state/store.ts";
import { baseEnv, CLI } from "../helpers/cli.ts";
import { fakeRunner } from "../helpers/fake-runner.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { sampleLane, sampleState } from "../helpers/state.ts";

let client: Client | undefined;
let runner: ReturnType<typeof Bun.spawn> | undefined;
afterAll(async () => {
  await client?.close();
  runner?.kill("SIGKILL");
});

test("loop_status and list_loops carry the lanes; a lane's worktree is not a loop of its own", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n## 2. B\n- [ ] b\n" });
  const laneDir = join(repo, ".git/wt-loop/lanes/repo-abc/1-1");
  git(repo, "worktree", "add", "-q", "-b", "wt-loop/lane/repo-abc/1-1", laneDir);
  runner = await fakeRunner(repo);
  const lanes = [sampleLane("1", "A", { worktree: laneDir }), sampleLane("2", "B", { iteration: 2, status: "queued", agent_pid: null })];
  await writeState(
    loopPaths(repo).state,
    sampleState({
      worktree_path: repo,
      worktree_name: basename(repo),
      status: "running",
      ended_at: null,
      runner_pid: runner.pid,
      runner_started: processStartTime(runner.pid),
      parallel: 2,
      completion: null,
      lanes,
    }),
  );
  client = new Client({ name: "wt-loop-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd: repo, env: baseEnv(), stderr: "pipe" }));
  const status = (await client.callTool({ name: "loop_status", arguments: {} })) as any;
  expect(status.isError).toBeFalsy();
  expect(status.structuredContent.state.lanes).toEqual(lanes);
  expect(status.structuredContent.summary.lanes.map((l: any) => [l.story_id, l.status, l.agent_pid])).toEqual([
    ["1", "running", 4242],
    ["2", "queued", null],
  ]);
  const list = (await client.callTool({ name: "list_loops", arguments: {} })) as any;
  expect(list.structuredContent.loops.map((e: any) => e.name)).toEqual(["repo"]);
  expect(list.structuredContent.loops[0].loop.lanes).toHaveLength(2);
}, 60_000);
