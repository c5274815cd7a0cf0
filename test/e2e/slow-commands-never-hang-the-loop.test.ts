// A git call that hangs ends the loop (a harness failure: nothing reverted) after --command-timeout, and a stop
// is honoured while it runs (SPEC §6).
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, ROOT, spawnWtLoop, testPath } from "../helpers/cli.ts";
import { ONE_STORY, readState } from "../helpers/fixtures.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
const hangEnv = (repo: string) => ({
  PATH: `${join(ROOT, "test/fixtures/git-hang")}:${testPath()}`,
  REAL_GIT: Bun.which("git")!,
  FAKE_GIT_HANG: join(repo, "hang.flag"),
  FAKE_GIT_HANG_ON: "status", // the call that measures what the attempt changed
});

describe("slow commands", () => {
  test("a git call over --command-timeout ends the loop stuck with an error, never reverted: the harness failed, not the agent", async () => {
    const repo = makeRepo({ "tasks.md": ONE_STORY });
    const r = await runLoop(
      repo,
      [{ promise: "COMPLETE", tick: "story", write: { [join(repo, "hang.flag")]: "" } }, COMPLETE()],
      ["--command-timeout", "1"],
      hangEnv(repo),
    );
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
    const proc = spawnWtLoop(["start", "--terminal", "inline", "--command-timeout", "120"], { cwd: repo, env: { ...agent.env, ...hangEnv(repo) } });
    // The fake git names the hanging call: the loop is inside the snapshot after the agent's run.
    await waitFor("the git call to hang", () => existsSync(join(repo, "hang.flag.hanging")), 30_000, { whileRunning: proc });
    const t0 = Date.now();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(4);
    expect(Date.now() - t0).toBeLessThan(30_000); // far below the 120 s command timeout
    expect(readState(repo).status).toBe("stopped");
    expect(existsSync(join(repo, "hang.flag"))).toBe(true); // in-progress changes stay
  }, 60_000);
});
