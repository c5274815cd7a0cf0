// A repository can commit `.claude/loop-state.json`. Whatever pids it names, `stop`, `stop --force`
// and the MCP stop tool signal nothing that is not this worktree's own wt-loop runner (and its agent),
// and say the state is stale. Each case runs inside its own pid namespace: the processes named are
// a `sleep` (and a `setsid sleep`) of that namespace, and a wrong answer — kill(-1) included — can
// reach nothing outside it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, ROOT } from "../helpers/cli.ts";
import { makeRepo } from "../helpers/repo.ts";
import { sampleState } from "../helpers/state.ts";

const MCP_STOP = join(ROOT, "test/fixtures/mcp-stop.ts");
const COMMANDS: [string, string][] = [
  ["stop --force", `"$BUN" "$CLI" stop --force`],
  ["stop", `"$BUN" "$CLI" stop --wait 2`],
  ["MCP stop_loop", `"$BUN" "$MCP_STOP" "$CLI" "$REPO" false`],
  ["MCP stop_loop force", `"$BUN" "$MCP_STOP" "$CLI" "$REPO" true`],
];

/**
 * Inside a new pid namespace: starts `sleep` (S) and `setsid sleep` (G, leading its own group), then
 * for each command plants `state` (with S, G and their start times put in for the placeholders),
 * runs the command and reports whether S and G are still alive.
 */
async function inNamespace(repo: string, state: object): Promise<{ name: string; output: string; alive: string }[]> {
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeFileSync(join(repo, "planted.json"), JSON.stringify(state));
  const script = [
    "sleep 300 & S=$!",
    "setsid sleep 300 & G=$!",
    "sleep 0.2",
    "ST=$(cut -d' ' -f22 /proc/$S/stat); GT=$(cut -d' ' -f22 /proc/$G/stat)",
    ...COMMANDS.flatMap(([name, cmd]) => [
      `sed -e "s/\\"__S__\\"/$S/g; s/__ST__/$ST/g; s/\\"__G__\\"/$G/g; s/__GT__/$GT/g" planted.json > .claude/loop-state.json`,
      `echo "=== ${name}"`,
      `${cmd} 2>&1`,
      `sleep 0.3; echo "--- alive: $(kill -0 $S 2>/dev/null && echo S)$(kill -0 $G 2>/dev/null && echo G)"`,
    ]),
  ].join("\n");
  const p = Bun.spawn(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script], {
    cwd: repo,
    env: baseEnv({ BUN: process.execPath, CLI, MCP_STOP, REPO: repo }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (!out.includes("=== stop --force"))
    throw new Error(
      `These tests need \`unshare --pid --fork --mount-proc\` (util-linux, run as root or with user namespaces); it failed (exit ${code}): ${err}`,
    );
  return out
    .split("=== ")
    .slice(1)
    .map((block) => {
      const [head, ...rest] = block.split("\n");
      const text = rest.join("\n");
      return { name: head!, output: text.split("--- alive:")[0]!, alive: (text.split("--- alive:")[1] ?? "").trim() };
    });
}

function expectNothingSignalled(results: Awaited<ReturnType<typeof inNamespace>>, pidNamed: RegExp) {
  expect(results.map((r) => r.name)).toEqual(COMMANDS.map(([n]) => n));
  for (const r of results) {
    expect({ command: r.name, alive: r.alive }).toEqual({ command: r.name, alive: "SG" });
    expect({ command: r.name, output: r.output }).toEqual({ command: r.name, output: expect.stringMatching(/stale or foreign state file/) });
    expect({ command: r.name, output: r.output }).toEqual({ command: r.name, output: expect.stringMatching(pidNamed) });
    expect({ command: r.name, output: r.output }).toEqual({ command: r.name, output: expect.stringContaining("nothing was signalled") });
  }
}

const running = (repo: string, over: Record<string, unknown>) => ({
  ...sampleState({ worktree_path: repo, worktree_name: "repo", status: "running", ended_at: null, completion: null }),
  ...over,
});

describe("a planted state file: stop, stop --force and the MCP stop tool signal nothing", () => {
  test("(a) the runner pid of an unrelated live process, with no start time", async () => {
    const repo = makeRepo();
    expectNothingSignalled(await inNamespace(repo, running(repo, { runner_pid: "__S__", runner_started: null })), /pid \d+/);
  }, 180_000);

  test("(b) a forged start time: the process's real one, but it is not a wt-loop run", async () => {
    const repo = makeRepo();
    expectNothingSignalled(await inNamespace(repo, running(repo, { runner_pid: "__S__", runner_started: "__ST__" })), /pid \d+/);
  }, 180_000);

  test("(c) the agent pid of an unrelated process group, with its start time", async () => {
    const repo = makeRepo();
    const state = running(repo, { runner_pid: "__S__", runner_started: "__ST__", agent_pid: "__G__", agent_started: "__GT__" });
    expectNothingSignalled(await inNamespace(repo, state), /pid \d+/);
  }, 180_000);

  test("(d) agent pid 1: never kill(-1)", async () => {
    const repo = makeRepo();
    expectNothingSignalled(await inNamespace(repo, running(repo, { runner_pid: "__S__", runner_started: null, agent_pid: 1 })), /pid \d+/);
  }, 180_000);

  test("(e) a wt-tools state naming pid 1", async () => {
    const repo = makeRepo();
    const seed = {
      worktree_name: "repo",
      task: "Implement auth",
      done_criteria: "tasks",
      max_iterations: 10,
      current_iteration: 1,
      status: "running",
      terminal_pid: 1,
      started_at: "2026-11-01T10:00:00+01:00",
      stall_threshold: 2,
      iteration_timeout_min: 45,
      total_tokens: 0,
      iterations: [],
    };
    expectNothingSignalled(await inNamespace(repo, seed), /pid 1\b/);
  }, 180_000);
});
