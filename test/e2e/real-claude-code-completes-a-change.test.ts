// The real Claude Code binary (pinned dev dependency) under wt-loop, against a scripted local model:
// it really reads, edits and writes files and runs commands in the worktree.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { git, makeRepo, openspecFiles, tempDir } from "../helpers/repo.ts";
import { waitGone } from "../helpers/wait.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

const TASKS = "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 Write greet.txt\n- [ ] 1.2 Check it\n\n## 2. Farewell\n- [ ] 2.1 Write bye.txt\n";
const tasksPath = (repo: string) => join(repo, "openspec/changes/add-greeting/tasks.md");

/** One story done the way a model would: read the tasks, write code, run a command, tick the boxes, promise. */
function story(repo: string, file: string, open: string, ticked: string, final = "Done and verified. <promise>COMPLETE</promise>"): Turn[] {
  return [
    { tool: "Read", input: { file_path: tasksPath(repo) } },
    { tool: "Write", input: { file_path: join(repo, file), content: `${file}\n` } },
    { tool: "Bash", input: { command: `cat ${file}`, description: "check the file" } },
    { tool: "Edit", input: { file_path: tasksPath(repo), old_string: open, new_string: ticked } },
    { text: final },
  ];
}

async function loop(repo: string, conversations: Turn[][], args: string[] = []) {
  server = startModelServer(conversations);
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", ...args], {
    cwd: repo,
    env: { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}` },
    timeoutMs: 300_000,
  });
  const state = readJson(join(repo, ".claude/loop-state.json"));
  return { ...r, state, prompts: server.prompts() };
}

/** The `result` lines the real binary printed, from the untruncated iteration logs. */
function results(state: any): any[] {
  return state.iterations.flatMap((i: any) =>
    readFileSync(i.log_file, "utf8")
      .split("\n")
      .filter((l: string) => l.includes('"type":"result"'))
      .map((l: string) => JSON.parse(l)),
  );
}

describe("the real Claude Code binary under wt-loop", () => {
  test("completes a two-story OpenSpec change: checkpoints, files, tokens and cost from the result lines", async () => {
    const repo = makeRepo(openspecFiles("add-greeting", TASKS));
    const r = await loop(repo, [
      story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt\n- [ ] 1.2 Check it", "- [x] 1.1 Write greet.txt\n- [x] 1.2 Check it"),
      story(repo, "bye.txt", "- [ ] 2.1 Write bye.txt", "- [x] 2.1 Write bye.txt"),
    ]);
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    expect(git(repo, "log", "--format=%s", "main..HEAD").split("\n")).toEqual([
      "checkpoint: story 2 — Farewell",
      "checkpoint: story 1 — Greeting",
      "initial state",
    ]);
    expect(readFileSync(join(repo, "greet.txt"), "utf8")).toBe("greet.txt\n");
    expect(readFileSync(join(repo, "bye.txt"), "utf8")).toBe("bye.txt\n");
    expect(readFileSync(tasksPath(repo), "utf8")).not.toContain("- [ ]");
    const res = results(r.state);
    expect(res).toHaveLength(2);
    const sum = (f: (x: any) => number) => res.reduce((a, x) => a + f(x), 0);
    const u = (x: any) => x.usage.input_tokens + x.usage.output_tokens + (x.usage.cache_read_input_tokens ?? 0) + (x.usage.cache_creation_input_tokens ?? 0);
    expect(r.state.total_tokens).toBe(sum(u));
    expect(r.state.total_tokens).toBeGreaterThan(0);
    expect(r.state.total_cost_usd).toBeCloseTo(
      sum((x) => x.total_cost_usd),
      10,
    );
    expect(r.state.iterations.map((i: any) => i.turns)).toEqual(res.map((x) => x.num_turns));
    // The events show the real tool calls.
    const tools = readEvents(repo)
      .filter((e) => e.type === "StoryEvent" && e.event.type === "ToolUse")
      .map((e) => e.event.name);
    expect(tools).toEqual(["Read", "Write", "Bash", "Edit", "Read", "Write", "Bash", "Edit"]);
    expect(r.prompts[0]).toContain("## Your story: 1. Greeting (story 1 of 2)");
    expect(r.prompts[1]).toContain("## Your story: 2. Farewell (story 2 of 2)");
  }, 300_000);

  test("FAILED: the tree is reverted and the second prompt carries the reason; then success", async () => {
    const repo = makeRepo(openspecFiles("add-greeting", "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n"));
    const r = await loop(repo, [
      [
        { tool: "Write", input: { file_path: join(repo, "wrong.txt"), content: "x" } },
        { text: "<promise>FAILED: the greeting format is undefined in the spec</promise>" },
      ],
      story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt", "- [x] 1.1 Write greet.txt"),
    ]);
    expect(r.code).toBe(0);
    expect(existsSync(join(repo, "wrong.txt"))).toBe(false);
    expect(r.state.iterations.map((i: any) => i.outcome)).toEqual(["failed", "complete"]);
    expect(r.prompts[1]).toContain("the greeting format is undefined in the spec");
    expect(r.prompts[0]).not.toContain("Previous attempt failed");
  }, 300_000);

  test("COMPLETE with a box left unticked is rejected by the harness and retried", async () => {
    const repo = makeRepo(openspecFiles("add-greeting", "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n- [ ] 1.2 Check it\n"));
    const r = await loop(repo, [
      story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt", "- [x] 1.1 Write greet.txt"),
      story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt\n- [ ] 1.2 Check it", "- [x] 1.1 Write greet.txt\n- [x] 1.2 Check it"),
    ]);
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i: any) => i.outcome)).toEqual(["rejected", "complete"]);
    expect(r.prompts[1]).toContain('not ticked in the tasks file: "1.2 Check it"');
  }, 300_000);

  test("a promise quoted in a tool result does not count", async () => {
    const repo = makeRepo({
      ...openspecFiles("add-greeting", "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n"),
      "notes.md": "say <promise>COMPLETE</promise> when done\n",
    });
    const r = await loop(repo, [
      [{ tool: "Bash", input: { command: "cat notes.md", description: "read notes" } }, { text: "I read the notes; nothing done yet." }],
      story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt", "- [x] 1.1 Write greet.txt"),
    ]);
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i: any) => i.outcome)).toEqual(["no_signal", "complete"]);
    expect(readFileSync(r.state.iterations[0].log_file, "utf8")).toContain("say <promise>COMPLETE</promise> when done");
  }, 300_000);

  test("the iteration timeout kills the real binary and everything it started", async () => {
    const repo = makeRepo(openspecFiles("add-greeting", "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n"));
    const pids = join(tempDir(), "pids");
    // (Claude Code refuses long `sleep`s, so the command hangs on `tail -f` instead.)
    const r = await loop(
      repo,
      [
        [
          {
            tool: "Bash",
            input: {
              command: `tail -f /dev/null & echo $! > ${pids}; echo $$ >> ${pids}; echo $PPID >> ${pids}; tail -f /dev/null`,
              description: "hang",
              timeout: 600000,
            },
          },
        ],
        story(repo, "greet.txt", "- [ ] 1.1 Write greet.txt", "- [x] 1.1 Write greet.txt"),
      ],
      ["--iteration-timeout", "0.15"],
    );
    expect(r.code).toBe(0);
    expect(r.state.iterations[0]).toMatchObject({ outcome: "timeout", timed_out: true });
    const started = readFileSync(pids, "utf8").trim().split("\n").map(Number);
    expect(started).toHaveLength(3); // the background tail, Claude's shell, and the shell's parent (Claude Code)
    for (const pid of started) await waitGone("a process the agent started", pid, 5000);
  }, 300_000);
});
