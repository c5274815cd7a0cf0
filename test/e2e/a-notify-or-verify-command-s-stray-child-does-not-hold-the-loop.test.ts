// A `--notify` or `--verify` command that leaves a detached grandchild (`(setsid sleep 60 &)`, a
// daemon it starts) must not keep a finished loop alive: the runner exits once the command has, a
// new `start` is not refused by a lock the lingering runner holds, and the grandchild is ended with
// it, as an agent's would be.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { collect, fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

/** A shell line that leaves `sleep 60` in a session of its own, and ends once its pid is in `pidFile`. */
const stray = (pidFile: string) =>
  `(setsid sh -c 'echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; exec sleep 60' &); while [ ! -s ${pidFile} ]; do sleep 0.05; done`;

async function loopWith(flag: "--notify" | "--verify", command: (pidFile: string) => string) {
  const repo = makeRepo();
  const side = tempDir("stray-");
  const pidFile = join(side, "sleep.pid");
  const agent = fakeAgent([{ promise: "COMPLETE" }], tempDir("fake-agent-"));
  const p = spawnWtLoop(["start", "--terminal", "inline", "--done", "manual", "--on-complete", "keep", flag, command(pidFile), "a task"], {
    cwd: repo,
    env: agent.env,
  });
  const out = collect(p.stdout);
  const err = collect(p.stderr);
  const sleeper = Number(
    await waitFor("the command's detached sleep to write its pid", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim(), 60_000),
  );
  // Far less than the sleep's 60 s: before the fix the runner waited for the sleep to end.
  const code = await Promise.race([p.exited, Bun.sleep(40_000).then(() => "still running" as const)]);
  if (code === "still running") {
    p.kill("SIGKILL");
    process.kill(sleeper, "SIGKILL");
    throw new Error(`the runner was still running 40 s after its ${flag} command started (${out.text()} ${err.text()})`);
  }
  return { repo, agent, code, sleeper, stdout: await out.done };
}

describe("a stray child of --notify or --verify does not hold the loop", () => {
  test("--notify: the runner exits after done, the sleep is ended, a new start runs", async () => {
    const r = await loopWith("--notify", (pid) => `${stray(pid)}; echo notified`);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(r.repo, ".claude/loop-state.json"), "utf8")).status).toBe("done");
    await waitGone("the --notify command's detached sleep", r.sleeper);
    const again = await wtLoop(["start", "--terminal", "inline", "--done", "manual", "--on-complete", "keep", "another task"], {
      cwd: r.repo,
      env: r.agent.env,
    });
    expect(again.stderr).not.toContain("Another loop");
    expect(again.code).toBe(0);
  }, 120_000);

  test("--verify: the verify passes, the runner exits after done, the sleep is ended", async () => {
    const r = await loopWith("--verify", (pid) => `${stray(pid)}; echo verified`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("verify passed");
    expect(isAlive(r.sleeper) ? await waitGone("the --verify command's detached sleep", r.sleeper) : true).toBe(true);
  }, 120_000);
});
