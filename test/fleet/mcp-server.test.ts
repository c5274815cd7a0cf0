// `wt-loop mcp` driven by the MCP SDK's own client over stdio, as an MCP client (Claude Code, an
// editor) drives it: initialize, tools/list, each tool, and the loops' state resources.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import pkg from "../../package.json" with { type: "json" };
import { baseEnv, CLI, wtLoop } from "../helpers/cli.ts";
import { repoWithWorktrees, startHangingLoop } from "../helpers/fleet.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { readState as stateFile } from "../helpers/fixtures.ts";

let repo: ReturnType<typeof repoWithWorktrees>;
let running: Awaited<ReturnType<typeof startHangingLoop>>;
let client: Client;
const LONG = "L".repeat(5000);

beforeAll(async () => {
  repo = repoWithWorktrees(["wt-run", "wt-done"]);
  const done = await runLoop(
    repo.wt["wt-done"]!,
    [COMPLETE({ messages: ["working on story 1", LONG] }), COMPLETE({ messages: ["story 2 now"] })],
    ["--on-complete", "keep"],
  );
  if (done.code !== 0) throw new Error(done.stderr);
  running = await startHangingLoop(repo.wt["wt-run"]!);
  client = new Client({ name: "wt-loop-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd: repo.main, env: baseEnv(), stderr: "pipe" }));
}, 120_000);
afterAll(async () => {
  await client?.close();
  await running?.stop();
});

const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as any;

describe("wt-loop mcp, through the SDK's client on stdio", () => {
  test("initialize: the server names itself and offers tools and resources", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "wt-loop", version: pkg.version });
    expect(client.getServerCapabilities()).toHaveProperty("tools");
    expect(client.getServerCapabilities()).toHaveProperty("resources");
  });

  test("tools/list: the nine tools, each with its input and output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add_note",
      "list_loops",
      "loop_history",
      "loop_log",
      "loop_status",
      "pause_loop",
      "resume_loop",
      "set_max_iterations",
      "stop_loop",
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description).toBeTruthy();
    }
    const log = tools.find((t) => t.name === "loop_log")!;
    expect(Object.keys(log.inputSchema.properties ?? {}).sort()).toEqual(["limit", "max_chars", "story", "worktree"]);
  });

  test("list_loops: what `wt-loop list --json` prints", async () => {
    const r = await call("list_loops");
    expect(r.isError).toBeFalsy();
    const cli = JSON.parse((await wtLoop(["list", "--json"], { cwd: repo.main })).stdout);
    const strip = (l: any[]) => l.map((e) => ({ ...e, loop: e.loop && { ...e.loop, elapsed_ms: 0 } }));
    expect(strip(r.structuredContent.loops)).toEqual(strip(cli));
    expect(JSON.parse(r.content[0].text)).toEqual(r.structuredContent);
    expect(r.structuredContent.loops.map((e: any) => [e.name, e.loop?.status ?? null])).toEqual([
      ["repo", null],
      ["wt-done", "done"],
      ["wt-run", "running"],
    ]);
  });

  test("loop_status: the state file of the worktree named, by name or path; none where no loop has run", async () => {
    const r = await call("loop_status", { worktree: "wt-done" });
    expect(r.structuredContent.state).toEqual(stateFile(repo.wt["wt-done"]!));
    expect(r.structuredContent.summary).toMatchObject({ status: "done", stories_completed: 2, runner_alive: false });
    // The receipt, as `status --json` carries it.
    expect(r.structuredContent.receipt).toEqual(JSON.parse((await wtLoop(["status", "--json"], { cwd: repo.wt["wt-done"]! })).stdout).receipt);
    expect(r.structuredContent.receipt.stories.map((s: any) => s.id)).toEqual(["1", "2"]);
    const byPath = await call("loop_status", { worktree: repo.wt["wt-run"]! });
    expect(byPath.structuredContent.summary).toMatchObject({ status: "running", runner_alive: true, runner_pid: running.proc.pid });
    const none = await call("loop_status"); // the server's own worktree: the main one, no loop
    expect(none.isError).toBe(true);
    expect(none.content[0].text).toContain("No loop has run in repo");
    const unknown = await call("loop_status", { worktree: "nope" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toContain("wt-done");
  });

  test("loop_history: the iterations and totals, as `history --json`", async () => {
    const r = await call("loop_history", { worktree: "wt-done" });
    const cli = JSON.parse((await wtLoop(["history", "--json"], { cwd: repo.wt["wt-done"]! })).stdout);
    expect({ iterations: r.structuredContent.iterations, totals: r.structuredContent.totals }).toEqual(cli);
    expect(r.structuredContent.iterations.map((i: any) => i.story_id)).toEqual(["1", "2"]);
  });

  test("loop_log: one story's recent events, oldest first, bounded in number and size", async () => {
    const r = await call("loop_log", { worktree: "wt-done", story: "1", max_chars: 100 });
    const ev = r.structuredContent.events;
    expect(r.structuredContent).toMatchObject({ story_id: "1", more: false, clipped: true });
    expect(ev[0]).toMatchObject({ type: "StoryProgress", story_id: "1" });
    expect(ev.every((e: any) => e.story_id === "1")).toBe(true);
    const texts = ev.filter((e: any) => e.event?.type === "Message").map((e: any) => e.event.text);
    expect(texts[0]).toBe("working on story 1");
    expect(texts[1]).toBe(`${"L".repeat(100)}… [4900 more characters in the iteration log]`);
    expect(ev.at(-1)).toMatchObject({ type: "IterationEnd", story_id: "1", outcome: "complete" });

    // Default story: the latest; the run's Complete event comes with it; limit keeps the newest.
    const last = await call("loop_log", { worktree: "wt-done", limit: 2 });
    expect(last.structuredContent).toMatchObject({ story_id: "2", more: true });
    expect(last.structuredContent.events.map((e: any) => e.type)).toEqual(["IterationEnd", "Complete"]);

    const bad = await call("loop_log", { worktree: "wt-done", limit: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("limit");
  });

  test("resources: one state resource per loop, readable", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["wt-loop://state/wt-done", "wt-loop://state/wt-run"]);
    const read = await client.readResource({ uri: "wt-loop://state/wt-done" });
    expect(JSON.parse((read.contents[0] as any).text)).toEqual(stateFile(repo.wt["wt-done"]!));
  });

  test("stop_loop: stops a running loop gracefully, as `wt-loop stop` does", async () => {
    const r = await call("stop_loop", { worktree: "wt-run" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ exit_code: 0, status: "stopped" });
    expect(await running.proc.exited).toBe(4);
    expect(stateFile(repo.wt["wt-run"]!).status).toBe("stopped");
  }, 90_000);

  test("stop_loop with force kills the runner at once", async () => {
    running = await startHangingLoop(repo.wt["wt-run"]!);
    const r = await call("stop_loop", { worktree: "wt-run", force: true });
    expect(r.structuredContent).toMatchObject({ exit_code: 0, status: "stopped" });
    expect(r.structuredContent.output).toContain("Killed the loop");
    expect(await running.proc.exited).toBe(137);
  }, 90_000);
});
