// `wt-loop doctor` names each missing piece on one line, with its fix, and `start` refuses with that
// same line: each case takes one piece away (the agent, a git command, openspec, a terminal, the
// loop's folder, the worktree) from an otherwise ready worktree.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOT_IN_WORKTREE } from "../../src/errors.ts";
import { DoctorReport } from "../../src/setup/doctor.ts";
import { FAKE_BIN, NODE_BIN, testPath, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";

const GIT = Bun.which("git")!;

/** A PATH of only these programs: nothing else (no tmux, no terminal, no agent) is found. */
function onlyOnPath(programs: Record<string, string>): string {
  const dir = tempDir("doctor-bin-");
  for (const [name, target] of Object.entries(programs)) symlinkSync(target, join(dir, name));
  return dir;
}
const BASICS = { git: GIT, bun: process.execPath };
const noDisplay = { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, TERMINAL: undefined };

async function doctor(cwd: string, env: Record<string, string | undefined> = {}, args: string[] = []) {
  const r = await wtLoop(["doctor", ...args], { cwd, env });
  const json = await wtLoop(["doctor", "--json", ...args], { cwd, env });
  const report = DoctorReport.parse(JSON.parse(json.stdout));
  expect(json.code).toBe(r.code);
  expect(report.ready).toBe(r.code === 0);
  return { ...r, report, line: (id: string) => r.stdout.split("\n").find((l) => l.slice(2).startsWith(`${id} `)) ?? "" };
}

/** The words of a ✗ line after its mark and name: what a refused start must say. */
const words = (line: string) => line.replace(/^[✓!✗] \S+\s+/, "");

describe("wt-loop doctor", () => {
  test("a ready worktree: every line ✓, exit 0, the same in --json", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const d = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(d.code).toBe(0);
    // `gh` has a line when it is installed (--issue needs it; docs/github.md), and none otherwise.
    const gh = Bun.which("gh") ? ["gh"] : [];
    expect(d.report.checks.map((c) => c.id)).toEqual(["git", "worktree", "agent", "stories", ...gh, "terminal", ".claude", "disk"]);
    expect(d.report.checks.every((c) => c.mark === "ok")).toBe(true);
    expect(d.line("agent")).toBe("✓ agent     claude: claude 2.1.0 (Claude Code, fake)");
    expect(d.line("stories")).toBe("✓ stories   2 stories in tasks.md, 2 left");
    expect(d.stdout).toContain("A loop can start here.");
  });

  test("PATH without the agent: ✗ with the install command, and start refuses with that line", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const env = { PATH: onlyOnPath(BASICS) };
    const d = await doctor(repo, env, ["--terminal", "inline"]);
    expect(d.code).toBe(1);
    expect(d.line("agent")).toContain("✗ agent");
    expect(d.line("agent")).toContain("Fix: npm install -g @anthropic-ai/claude-code");
    const start = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(words(d.line("agent")));
    expect(existsSync(join(repo, ".claude"))).toBe(false);
  });

  test("a git without a command the loop runs: doctor ✗ naming it; start does not probe git's commands (only doctor does)", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const bin = onlyOnPath({ bun: process.execPath, claude: join(FAKE_BIN, "claude") });
    const calls = join(tempDir("git-calls-"), "calls.txt");
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\necho "$*" >> ${calls}\nif [ "$1" = stash ]; then echo "git: 'stash' is not a git command. See 'git --help'." >&2; exit 1; fi\nexec ${GIT} "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    const d = await doctor(repo, { PATH: bin }, ["--terminal", "inline"]);
    expect(d.code).toBe(1);
    expect(d.line("git")).toMatch(/^✗ git .*cannot run `git stash`, which the loop needs\. Fix: reinstall git/);
    writeFileSync(calls, "");
    // Ten `git <cmd> -h` processes on every start cost ~40 ms (docs/performance.md): start leaves them to doctor.
    const start = await wtLoop(["start", "--terminal", "inline", "--dry-run"], { cwd: repo, env: { PATH: bin } });
    expect(start.code).toBe(0);
    expect(readFileSync(calls, "utf8")).toContain("--version");
    expect(readFileSync(calls, "utf8")).not.toMatch(/ -h$/m);
  });

  test("start --dry-run without the agent's CLI: the plan first, then what a real start would refuse, exit 1, nothing written", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await wtLoop(["start", "--terminal", "inline", "--dry-run"], { cwd: repo, env: { PATH: onlyOnPath(BASICS) } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Dry run in");
    expect(r.stdout).toContain("1. First story");
    expect(r.stderr).toContain("A real start would refuse:");
    expect(r.stderr).toContain("The claude agent CLI 'claude' is not installed");
    expect(existsSync(join(repo, ".claude"))).toBe(false);
    // A flag mistake is still refused before any plan: it is the command line, not the machine.
    const mistake = await wtLoop(["start", "--terminal", "inline", "--dry-run", "--agent", "command"], { cwd: repo, env: { PATH: onlyOnPath(BASICS) } });
    expect(mistake.code).toBe(1);
    expect(mistake.stdout).not.toContain("Dry run in");
    expect(mistake.stderr).toContain("--agent command needs --agent-cmd CMD");
  });

  test("flag mistakes are said before what the machine lacks, by start and by doctor", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const env = { PATH: onlyOnPath(BASICS) }; // no agent, no reviewer
    for (const [args, said] of [
      [["--agent", "codex", "--max-cost", "1"], "--max-cost needs an agent that reports its cost"],
      [["--review-model", "opus"], "--review-model is only used with --review"],
      [["--agent", "command"], "--agent command needs --agent-cmd CMD"],
      [["--review", "command"], "--review command needs --review-cmd CMD"],
    ] as const) {
      for (const cmd of ["start", "doctor"]) {
        const r = await wtLoop([cmd, "--terminal", "inline", ...args], { cwd: repo, env });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(said);
        expect(r.stderr + r.stdout).not.toContain("not installed");
      }
    }
    expect(existsSync(join(repo, ".claude"))).toBe(false);
  });

  test("the reviewer's program and the sandbox's tools are doctor lines, and start refuses with the same line", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const env = { PATH: onlyOnPath({ ...BASICS, claude: join(FAKE_BIN, "claude") }) }; // no codex, no bwrap
    for (const [args, id, fix] of [
      [["--review", "codex"], "reviewer", "Fix: npm install -g @openai/codex"],
      [["--sandbox"], "sandbox", "Fix: sudo apt-get install bubblewrap socat ripgrep"],
    ] as const) {
      const d = await doctor(repo, env, ["--terminal", "inline", ...args]);
      expect(d.code).toBe(1);
      expect(d.line(id)).toStartWith(`✗ ${id}`);
      expect(d.line(id)).toContain(fix);
      const start = await wtLoop(["start", "--terminal", "inline", ...args], { cwd: repo, env });
      expect(start.code).toBe(1);
      expect(start.stderr).toContain(words(d.line(id)));
    }
    const ready = await doctor(repo, {}, ["--terminal", "inline", "--review", "claude"]);
    expect(ready.line("reviewer")).toBe("✓ reviewer  claude: claude 2.1.0 (Claude Code, fake)");
  });

  test("--dry-run lists the reviewer with what it would run", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await wtLoop(["start", "--dry-run", "--terminal", "inline", "--review", "claude", "--review-model", "opus", "--review-timeout", "7"], {
      cwd: repo,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Review: +claude -p .*--model opus < review prompt \(--review claude: after each COMPLETE .*limit 7 min\)$/m);
    expect((await wtLoop(["start", "--dry-run", "--terminal", "inline"], { cwd: repo })).stdout).not.toContain("Review:");
  });

  test("an OpenSpec change without the openspec CLI: a warning with the install command, still ready", async () => {
    const repo = makeRepo({ "openspec/changes/add-x/tasks.md": TASKS_2_STORIES, "openspec/changes/add-x/proposal.md": "# x\n" });
    const without = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(without.code).toBe(0);
    expect(without.line("openspec")).toStartWith("! openspec");
    expect(without.line("openspec")).toContain("Fix: npm install -g @fission-ai/openspec");
    const withCli = await doctor(repo, { PATH: testPath({ openspec: true }) }, ["--terminal", "inline"]);
    expect(withCli.line("openspec")).toMatch(/^✓ openspec +openspec \d+\.\d+/);
  }, 60_000);

  test("no terminal launcher (no tmux, no display): ✗ terminal, and start refuses with that line", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const env = { PATH: onlyOnPath({ ...BASICS, claude: join(FAKE_BIN, "claude") }), ...noDisplay };
    const d = await doctor(repo, env);
    expect(d.code).toBe(1);
    expect(d.line("terminal")).toContain("✗ terminal  No terminal could be found");
    const start = await wtLoop(["start"], { cwd: repo, env });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(words(d.line("terminal")));
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
    // --terminal inline needs no launcher: the same worktree is ready.
    expect((await doctor(repo, env, ["--terminal", "inline"])).code).toBe(0);
  });

  test("the loop's folder is a link: ✗ .claude, start refuses with that line and writes nothing through it", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const elsewhere = tempDir("doctor-target-");
    symlinkSync(elsewhere, join(repo, ".claude"));
    const d = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(d.code).toBe(1);
    expect(d.line(".claude")).toStartWith("✗ .claude");
    const start = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(words(d.line(".claude")));
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test("the loop's folder cannot be written (a file where it goes): ✗ .claude, and start refuses with that line", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    writeFileSync(join(repo, ".claude"), "not a folder\n");
    const d = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(d.code).toBe(1);
    expect(d.line(".claude")).toContain("is not a folder");
    const start = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(words(d.line(".claude")));
  });

  test("not in a worktree: ✗ worktree, exit 1, and the other checks still run", async () => {
    const dir = tempDir("doctor-nowhere-");
    mkdirSync(join(dir, "sub"));
    const d = await doctor(join(dir, "sub"));
    expect(d.code).toBe(1);
    expect(d.line("worktree")).toStartWith(`✗ worktree  ${NOT_IN_WORKTREE}`);
    expect(d.line("git")).toStartWith("✓ git");
    expect(d.line("agent")).toStartWith("✓ agent");
    const start = await wtLoop(["start"], { cwd: join(dir, "sub") });
    expect(start.stderr).toContain(NOT_IN_WORKTREE);
  });

  test("a heading names an agent that is not installed, or a story that is not there: ✗ stories, and start refuses with that line", async () => {
    const tasks = "## 1. First\n- [x] a\n\n## 2. Port (agent: codex)\n- [ ] b\n";
    const repo = makeRepo({ "tasks.md": tasks });
    const env = { PATH: onlyOnPath({ ...BASICS, claude: join(FAKE_BIN, "claude") }) };
    const d = await doctor(repo, env, ["--terminal", "inline"]);
    expect(d.code).toBe(1);
    expect(d.line("stories")).toContain("✗ stories   tasks.md: `## 2. Port (agent: codex)` runs its attempts with codex, whose CLI 'codex' is not installed");
    const start = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(words(d.line("stories")));
    expect(existsSync(join(repo, ".claude"))).toBe(false);

    // Installed (the real Codex CLI, node_modules/.bin): ✓, naming it.
    const ready = await doctor(repo, { PATH: `${env.PATH}:${NODE_BIN}` }, ["--terminal", "inline"]);
    expect(ready.line("stories")).toBe("✓ stories   2 stories in tasks.md, 1 left; headings name codex (installed)");

    writeFileSync(join(repo, "tasks.md"), "## 1. First\n- [ ] a\n\n## 2. Second (after 7)\n- [ ] b\n");
    const graph = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(graph.code).toBe(1);
    expect(graph.line("stories")).toStartWith("✗ stories   tasks.md: the prerequisites in its headings");
    expect(graph.stdout).toContain("`## 2. Second (after 7)` names 7, which is no story of tasks.md");
  });

  test("no tasks.md: the stories line says start takes the task it is given (still ready)", async () => {
    const repo = makeRepo({ "README.md": "hello\n" });
    const d = await doctor(repo, {}, ["--terminal", "inline"]);
    expect(d.code).toBe(0);
    expect(d.line("stories")).toBe("✓ stories   no tasks.md: start takes the task you give it");
  });
});
