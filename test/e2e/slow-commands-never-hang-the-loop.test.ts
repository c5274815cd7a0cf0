// A git call that hangs ends the loop (a harness failure: nothing reverted) after --command-timeout, and a stop
// is honoured while it runs (SPEC §6).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, fakeAgent, ROOT, testPath } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const ONE_STORY = "## 1. Only story\n- [ ] 1.1 Do it\n";
const hangEnv = (repo: string) => ({
  PATH: `${join(ROOT, "test/fixtures/git-hang")}:${testPath()}`,
  REAL_GIT: Bun.which("git")!,
  FAKE_GIT_HANG: join(repo, "hang.flag"),
  FAKE_GIT_HANG_ON: "status", // the call that measures what the attempt changed
});

describe("slow commands", () => {
  test("a git call over --command-timeout ends the loop stuck with an error, never reverted: the harness failed, not the agent", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(repo, [{ promise: "COMPLETE", tick: "story", write: { [join(repo, "hang.flag")]: "" } }, COMPLETE()], ["--command-timeout", "1"], hangEnv(repo));
    expect(r.code).toBe(2);
    expect(r.state.status).toBe("stuck");
    expect(r.state.error).toContain("timed out after 1s");
    expect(r.state.error).toContain("measuring what the attempt changed");
    expect(r.state.completion).toBe("keep");
    expect(r.calls()).toBe(1); // not retried
    expect(existsSync(join(repo, "hang.flag"))).toBe(true); // the attempt's work was not reverted
  }, 60_000);

  test("a stop while a git call hangs is honoured at once", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const agent = fakeAgent([{ promise: "COMPLETE", write: { [join(repo, "hang.flag")]: "" } }], tempDir("fake-agent-"));
    const proc = Bun.spawn([process.execPath, CLI, "start", "--terminal", "inline", "--command-timeout", "120"], {
      cwd: repo, env: baseEnv({ ...agent.env, ...hangEnv(repo) }), stdout: "pipe", stderr: "pipe",
    });
    // Wait until the agent has finished, i.e. the loop is inside the hanging snapshot.
    while (!existsSync(join(agent.dir, "done"))) await Bun.sleep(100);
    await Bun.sleep(500);
    const t0 = Date.now();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(4);
    expect(Date.now() - t0).toBeLessThan(30_000); // far below the 120 s command timeout
    const s = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
    expect(s.status).toBe("stopped");
    expect(existsSync(join(repo, "hang.flag"))).toBe(true); // in-progress changes stay
  }, 60_000);
});
