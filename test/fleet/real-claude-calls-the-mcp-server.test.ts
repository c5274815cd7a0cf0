// The real Claude Code binary with `--mcp-config` pointing at `wt-loop mcp`, against the scripted
// model server: the "model" calls mcp__wt-loop__loop_status, and the tool result the CLI sends back
// to the model is the loop's state.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, NODE_BIN, baseEnv, testPath } from "../helpers/cli.ts";
import { repoWithWorktrees } from "../helpers/fleet.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { claudeEnv, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { tempDir } from "../helpers/repo.ts";
import { readState } from "../helpers/fixtures.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

/** The text of every tool_result block the CLI sent to the model. */
function toolResults(requests: any[]): { tool_use_id: string; is_error?: boolean; text: string }[] {
  return requests.flatMap((b) =>
    (b.messages as any[])
      .filter((m) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m) => m.content.filter((c: any) => c.type === "tool_result"))
      .map((c: any) => ({
        tool_use_id: c.tool_use_id,
        is_error: c.is_error,
        text: typeof c.content === "string" ? c.content : c.content.map((x: any) => x.text ?? "").join(""),
      })),
  );
}

describe("the real Claude Code binary calls wt-loop's MCP server", () => {
  test("mcp__wt-loop__loop_status returns the loop's state to the model", async () => {
    const repo = repoWithWorktrees(["wt-a"]);
    const done = await runLoop(repo.wt["wt-a"]!, [COMPLETE()], ["--on-complete", "keep"]);
    expect(done.code).toBe(0);

    server = startModelServer([[{ tool: "mcp__wt-loop__loop_status", input: { worktree: "wt-a" } }, { text: "The loop in wt-a is done." }]]);
    const home = tempDir("claude-home-");
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { "wt-loop": { type: "stdio", command: process.execPath, args: [CLI, "mcp"] } } }));
    const proc = Bun.spawn(
      [
        join(NODE_BIN, "claude"),
        "-p",
        "How is the loop in wt-a?",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        "--strict-mcp-config",
        "--mcp-config",
        config,
      ],
      { cwd: repo.main, env: baseEnv({ ...claudeEnv(server.url, home), PATH: `${NODE_BIN}:${testPath()}` }), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    const timer = setTimeout(() => proc.kill("SIGKILL"), 120_000);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });

    // The CLI connected to the server and has its tools under their MCP names (it offers MCP tools
    // to the model through its deferred tool search, so they are not all in the first request).
    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const init = lines.find((l) => l.type === "system" && l.subtype === "init");
    expect(init.mcp_servers).toEqual([expect.objectContaining({ name: "wt-loop", status: "connected" })]);
    expect(init.tools).toEqual(
      expect.arrayContaining([
        "mcp__wt-loop__list_loops",
        "mcp__wt-loop__loop_status",
        "mcp__wt-loop__loop_history",
        "mcp__wt-loop__loop_log",
        "mcp__wt-loop__stop_loop",
      ]),
    );
    // What the CLI sent back to the model is wt-loop's answer: the state file of wt-a.
    const results = toolResults(server.requests);
    expect(results).toHaveLength(1);
    expect(results[0]!.is_error).toBeFalsy();
    const answer = JSON.parse(results[0]!.text);
    const state = readState(repo.wt["wt-a"]!);
    expect(answer).toMatchObject({ worktree: repo.wt["wt-a"], name: "wt-a", state, summary: { status: "done", stories_completed: 2 } });
    const result = lines.find((l) => l.type === "result");
    expect(result).toMatchObject({ is_error: false, result: "The loop in wt-a is done." });
  }, 180_000);
});
