// What a user sees for bad input: a message naming the problem, exit 1, nothing written.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NOT_IN_WORKTREE } from "../../src/errors.ts";
import { wtLoop } from "../helpers/cli.ts";
import { git, makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";

const nothingWritten = (repo: string) => {
  expect(existsSync(join(repo, ".claude"))).toBe(false);
  expect(git(repo, "branch", "--show-current")).toBe("main");
  expect(readFileSync(join(repo, ".git/info/exclude"), "utf8")).not.toContain("wt-loop");
};

describe("options are validated", () => {
  test.each([
    [["--max", "abc"], "--max must be a number"],
    [["--max", "0"], "--max must be at least 1"],
    [["--max-retries", "1.5"], "--max-retries must be a whole number"],
    [["--stall-threshold", "-1"], "--stall-threshold must be at least 1"],
    [["--iteration-timeout", "0"], "--iteration-timeout must be greater than 0"],
    [["--command-timeout", "x"], "--command-timeout must be a number"],
    // Number() would read these as 16 and 1: a typo must not become a limit.
    [["--max-cost", "0x10"], "--max-cost must be a number"],
    [["--max", "0b1"], "--max must be a number"],
    [["--max-wait", "Infinity"], "--max-wait must be a number"],
    // A timer longer than 2^31-1 ms fires at once: it would kill every agent run immediately.
    [["--iteration-timeout", "40000"], "--iteration-timeout must be at most 35791 minutes"],
    [["--command-timeout", "3000000"], "--command-timeout must be at most 2147483 seconds"],
    [["--agent", "gpt"], "--agent must be claude, codex, gemini, command or demo, got 'gpt'"],
    [["--checkpoint", "tag"], "--checkpoint must be branch or stash, got 'tag'"],
    [["--done", "maybe"], "--done must be tasks or manual, got 'maybe'"],
    [["--on-complete", "delete"], "--on-complete must be ask, cleanup, keep or pr, got 'delete'"],
    [["--parallel", "17"], "--parallel must be at most 16 (each lane is an agent on your one account"],
    [["--parallel", "0"], "--parallel must be at least 1"],
    [["--parallel", "2.5"], "--parallel must be a whole number"],
    [["--parallel", "2", "--checkpoint", "stash"], "--parallel 2 needs branch checkpoints"],
    [["--parallel", "3", "--done", "manual", "a task"], "--parallel 3 needs --done tasks"],
    [["--bogus"], "Unknown option --bogus"],
    [["--max=3", "--frobnicate=1"], "Unknown option --frobnicate"],
    [["task one", "extra"], "Unexpected argument 'extra'"],
  ])("start %p", async (args, message) => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await wtLoop(["start", "--terminal", "inline", ...args], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("    at "); // no stack trace
    nothingWritten(repo);
  });

  test("a missing agent binary is a clear error before anything is written", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await wtLoop(["start", "--terminal", "inline", "--agent", "codex"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("The codex agent CLI 'codex' is not installed");
    nothingWritten(repo);
  });

  test("--agent command without --agent-cmd, and --agent-cmd naming a missing program", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const a = await wtLoop(["start", "--terminal", "inline", "--agent", "command"], { cwd: repo });
    expect(a.stderr).toContain("--agent command needs --agent-cmd");
    const b = await wtLoop(["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "nope-agent --x"], { cwd: repo });
    expect(b.stderr).toContain("The agent command 'nope-agent' was not found");
    const c = await wtLoop(["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "./missing-agent.sh"], { cwd: repo });
    expect(c.stderr).toContain("The agent command './missing-agent.sh' was not found");
    nothingWritten(repo);
  });

  test("--review command without --review-cmd, a missing reviewer program, and --review-cmd without --review: refused, nothing written", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const ok = ["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "true"];
    const a = await wtLoop([...ok, "--review", "command"], { cwd: repo });
    expect(a.stderr).toContain("--review command needs --review-cmd");
    const b = await wtLoop([...ok, "--review", "command", "--review-cmd", "nope-reviewer --x"], { cwd: repo });
    expect(b.stderr).toContain("The reviewer command 'nope-reviewer' was not found");
    const c = await wtLoop([...ok, "--review-cmd", "true"], { cwd: repo });
    expect(c.stderr).toContain("--review-cmd is only used with --review");
    const d = await wtLoop([...ok, "--review", "gemini", "--review-cmd", "true"], { cwd: repo });
    expect(d.stderr).toContain("--review-cmd is only used with --review command");
    for (const r of [a, b, c, d]) expect([r.code, r.stderr.includes("    at ")]).toEqual([1, false]);
    nothingWritten(repo);
  });

  test.each([["FOO=1 ./agent.sh"], ["exec ./agent.sh"], ["cd sub && ../agent.sh"], ["'./agent.sh'"]])(
    "--agent-cmd %p: what sh -c runs is not refused (only a plain first word is looked up)",
    async (cmd) => {
      const repo = makeRepo({
        "tasks.md": "## 1. Only\n- [ ] 1.1 Do it\n",
        "agent.sh":
          "#!/bin/sh\ncat >/dev/null\nsed -i 's/- \\[ \\]/- [x]/' \"$(git rev-parse --show-toplevel)/tasks.md\"\necho '<promise>COMPLETE</promise>'\n",
      });
      Bun.spawnSync(["chmod", "+x", join(repo, "agent.sh")]);
      Bun.spawnSync(["mkdir", join(repo, "sub")]);
      git(repo, "add", "-A");
      git(repo, "commit", "-qm", "agent");
      const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", cmd], { cwd: repo });
      expect(r.stderr).not.toContain("was not found");
      expect(r.code).toBe(0);
    },
  );

  test("manual without a task: says what to type", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('wt-loop start "describe the task"');
    nothingWritten(repo);
  });

  test("--parallel above 1 with no tasks.md: it needs stories to split, says what to do", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--terminal", "inline", "--parallel", "2", "a task"], { cwd: repo });
    expect([r.code, r.stderr.includes("    at ")]).toEqual([1, false]);
    expect(r.stderr).toContain("--parallel 2 needs stories to run side by side");
    expect(r.stderr).toContain("or use --parallel 1 with a task");
    nothingWritten(repo);
  });

  test("--done tasks with no tasks.md", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["start", "--terminal", "inline", "--done", "tasks", "x"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--done tasks needs a tasks.md");
  });
});

describe("outside a git worktree", () => {
  test.each([[["start"]], [["run"]], [["stop"]], [["status"]], [["history"]], [["monitor"]], [["status", "--json"]]])(
    "%p prints the exact message, exit 1",
    async (args: string[]) => {
      const r = await wtLoop(args, { cwd: tempDir() });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(NOT_IN_WORKTREE);
    },
  );
});

describe("the command line surface", () => {
  test("--help lists every command; each command's help shows every option with its default", async () => {
    const root = await wtLoop(["--help"], { cwd: tempDir() });
    expect(root.code).toBe(0);
    for (const c of ["start", "run", "stop", "status", "history", "monitor", "demo"]) expect(root.stdout).toContain(c);
    expect(root.stdout).not.toContain("demo-agent");
    const start = await wtLoop(["start", "--help"], { cwd: tempDir() });
    for (const [opt, def] of [
      ["--change", "the only active change"],
      ["--done", "tasks when a tasks.md"],
      ["--max", "30"],
      ["--max-retries", "3"],
      ["--stall-threshold", "2"],
      ["--iteration-timeout", "45"],
      ["--command-timeout", "30"],
      ["--agent", "claude"],
      ["--agent-cmd", ""],
      ["--model", ""],
      ["--checkpoint", "branch"],
      ["--on-complete", "ask"],
      ["--terminal", "auto"],
      ["--dry-run", "off"],
    ]) {
      expect(start.stdout).toContain(opt!);
      expect(start.stdout.replace(/\s+/g, " ")).toContain(`(default: ${def}`.slice(0, def ? undefined : 0)); // descriptions wrap
    }
  });

  test("an unknown command", async () => {
    const r = await wtLoop(["frobnicate"], { cwd: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Unknown command");
  });
});

describe("start --dry-run", () => {
  test("prints the plan and the first prompt, writes nothing, starts nothing", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Done already\n- [x] a\n## 2. Next\n- [ ] 2.1 b\n" });
    const r = await wtLoop(["start", "--dry-run", "--max", "7"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("✔ 1. Done already");
    expect(r.stdout).toContain("○ 2. Next");
    expect(r.stdout).toContain("[ ] 2.1 b");
    expect(r.stdout).toContain("claude -p --output-format stream-json --verbose --dangerously-skip-permissions < prompt");
    expect(r.stdout).toContain("7 iterations");
    expect(r.stdout).toContain("branch ralph/repo");
    expect(r.stdout).toContain("## Your story: 2. Next (story 2 of 2)");
    expect(r.stderr).not.toContain("cannot finish");
    nothingWritten(repo);
  });

  test("more stories left than --max allows iterations: said before anything starts", async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => `## ${i + 1}. S${i + 1}\n- [${i < 2 ? "x" : " "}] ${i + 1}.1 t\n`).join("");
    const repo = makeRepo({ "tasks.md": tasks });
    const r = await wtLoop(["start", "--dry-run", "--max", "7"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("10 stories are left and --max allows 7 iterations (at least one each): the loop cannot finish");
    expect(r.stderr).toContain("--max 10");
    nothingWritten(repo);
  });
});
