// The single binary a user installs: built with `bun run build`'s flags and run as a process.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROFILED, recordBytecodeOrder } from "../../scripts/release/bytecode-order.ts";
import { checkBinary } from "../../scripts/release/inspect.ts";
import { hostTarget, targetByName } from "../../scripts/release/targets.ts";
import { NOT_IN_WORKTREE } from "../../src/errors.ts";
import { buildBinary, fakeAgent, ROOT, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let bin = "";
beforeAll(() => {
  bin = buildBinary(tempDir("wt-loop-bin-"));
}, 120_000);

describe("the compiled binary", () => {
  test("--help; --version names the version, the commit built and the platform", async () => {
    const h = await wtLoop(["--help"], { cwd: tempDir(), bin });
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("start");
    const v = await wtLoop(["--version"], { cwd: tempDir(), bin });
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    const commit = git(ROOT, "rev-parse", "--short=10", "HEAD");
    expect(v.stdout.trim()).toMatch(new RegExp(`^wt-loop ${version} \\(commit ${commit}(-dirty)?, ${process.platform}-${process.arch}\\)$`));
  });

  test("the binary is this platform's executable with OpenTUI's native library inside", () => {
    const target = hostTarget();
    expect(checkBinary(bin, target, join(ROOT, "node_modules", target.native, target.library))).toEqual([]);
    // and the check can fail: another platform's expectations are not met
    expect(checkBinary(bin, targetByName("darwin-arm64")!, null)).not.toEqual([]);
  });

  // The build lays the bytecode out by what these runs used (scripts/release/bytecode-order.ts): each must run
  // to its end, or the layout would be an error path's.
  test("the start-up profile: each profiled command runs and writes its profile", () => {
    const profiles = recordBytecodeOrder(bin, tempDir());
    expect(profiles.length).toBe(PROFILED.length);
    for (const p of profiles) expect(readFileSync(p, "utf8")).toMatch(/^v2\n(?:[A-Z] [0-9a-f]{16}\n){100,}/);
  });

  test("status outside a repository: the exact message, exit 1", async () => {
    const r = await wtLoop(["status"], { cwd: tempDir(), bin });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(NOT_IN_WORKTREE);
  });

  test("an invalid option: named, exit 1", async () => {
    const r = await wtLoop(["start", "--max", "lots"], { cwd: makeRepo(), bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--max must be a number");
  });

  test("a repository's .env is not loaded into wt-loop or its agent", async () => {
    const repo = makeRepo({ ".env": "WT_LOOP_LEAK=leaked\n", ".gitignore": ".env\n" });
    const r = await wtLoop(
      ["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", 'echo "leak=[$WT_LOOP_LEAK]"; echo "<promise>COMPLETE</promise>"', "check env"],
      { cwd: repo, bin },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("leak=[]");
  });

  test("start opens a GUI terminal that outlives start (the loop runs there to done)", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const agent = fakeAgent([{ tick: "story", promise: "COMPLETE", hangSec: 1 }], tempDir("fake-agent-"));
    const log = join(tempDir(), "term.log");
    const r = await wtLoop(["start", "--terminal", "fake-term", "--on-complete", "keep"], {
      cwd: repo,
      bin,
      env: { ...agent.env, PATH: `${join(ROOT, "test/fixtures/term-bin")}:${testPath()}`, FAKE_TERM_LOG: log },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Started a loop in repo (fake-term)");
    // The final box is printed after the state's last write: wait for the box.
    await waitFor("the final box in the terminal", () => readFileSync(log, "utf8").includes("Loop done"));
    expect(readState(repo).status).toBe("done");
  }, 60_000);

  test("stop --force knows the binary's own runner and agent (by command line and start time) and kills them", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const agent = fakeAgent([{ hangSec: 300 }], tempDir("fake-agent-"));
    const runner = Bun.spawn([bin, "start", "--terminal", "inline", "--on-complete", "keep"], {
      cwd: repo,
      env: { ...process.env, ...agent.env, PATH: testPath(), NO_COLOR: "1" },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    const state = () => readState(repo);
    const s = await waitFor("the binary's loop to start its agent", () => state().status === "running" && state().agent_started && state(), 30_000, {
      whileRunning: runner,
    });
    expect(s).toMatchObject({ status: "running", runner_pid: runner.pid, agent_started: expect.any(String) });
    const r = await wtLoop(["stop", "--force"], { cwd: repo, bin });
    expect(r.stdout).toContain(`Killed the loop (runner pid ${runner.pid}, agent group ${s.agent_pid})`);
    expect(await runner.exited).not.toBe(0);
    expect(state().status).toBe("stopped");
  }, 60_000);

  test("wt-loop demo runs a whole loop to done on a throwaway repository", async () => {
    const r = await wtLoop(["demo"], { cwd: tempDir(), bin, env: { TMPDIR: tempDir() } });
    expect(r.code).toBe(0);
    const repo = /Demo repository: (\S+)/.exec(r.stdout)![1]!;
    expect(r.stdout).toContain("Loop done");
    expect(r.stdout).toContain("outcome failed"); // the scripted retry
    expect(r.stdout).toContain("fails on purpose, to show how wt-loop reverts the attempt and retries"); // said as it happens
    expect(r.stderr).not.toContain("openspec CLI"); // the demo loses nothing without it
    expect(r.stdout).toMatch(/2\/2 stories complete · 3 iterations · [\d,]+ tokens · - ·/); // no cost reported: "-", as in history
    expect(git(repo, "branch", "--show-current")).toBe("ralph/add-greeting");
    expect(git(repo, "log", "--format=%s", "-2").split("\n")).toEqual(["checkpoint: story 2 — Command line", "checkpoint: story 1 — Greeting function"]);
    expect(readFileSync(join(repo, "openspec/changes/add-greeting/tasks.md"), "utf8")).not.toContain("- [ ]");
    expect(readFileSync(join(repo, "greet.js"), "utf8")).toContain("Hello");
    const state = readState(repo);
    expect(state).toMatchObject({ status: "done", stories_completed: 2, agent: "demo" });
  }, 60_000);
});
