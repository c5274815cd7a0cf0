// A loop run's contained commands (its agent, --verify, --notify) all carry the run's tag, and a
// command that ends sweeps what it left behind. Each sweeps only its own: a --notify command that
// finished while the next agent run had just started ended that agent (SIGTERM, exit 143, the
// attempt lost as `no_signal`) — seen as a flaky "hard 429 mid-story" e2e under load. A dead
// runner's leftovers are still found by the run's tag, whichever command left them.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { endRunLeftovers, RUN_TAG_VAR, runTag } from "../../src/proc/contain.ts";
import { exec, start } from "../../src/proc/spawn.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { tempDir } from "../helpers/repo.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

test("a contained command that ends does not end another command of the same run", async () => {
  const d = tempDir();
  const tag = runTag(d, new Date().toISOString());
  const pidFile = join(d, "agent.pid");
  // As the loop starts them: the run's tag in the environment, and contained by it.
  const env = { ...process.env, [RUN_TAG_VAR]: tag };
  const agent = start(["sh", "-c", `echo $$ > ${pidFile}; exec sleep 60`], { cwd: d, env, contain: { tag } });
  try {
    const pid = await waitFor("the long command", () => Number(readFileSync(pidFile, "utf8")) || null);
    // The short one (a --notify command) ends, and its containment sweeps after it.
    expect((await exec(["sh", "-c", "echo notified"], { cwd: d, env, contain: { tag } })).stdout).toBe("notified");
    expect(isAlive(pid)).toBe(true);
  } finally {
    agent.kill();
  }
  expect((await agent.done).reason).toBe("exit");
}, 60_000);

test("the run's tag still finds every command's leftovers (a dead runner's, ended by status or stop)", async () => {
  const d = tempDir();
  const started = new Date().toISOString();
  const pidFile = join(d, "stray.pid");
  // A stray that left the command's group and outlived it (as a runner killed with -9 leaves one).
  const cmd = start(["sh", "-c", `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 60' & while [ ! -s ${pidFile} ]; do sleep 0.05; done; exec sleep 60`], {
    cwd: d,
    env: { ...process.env, [RUN_TAG_VAR]: runTag(d, started) },
    contain: { tag: runTag(d, started) },
  });
  const stray = await waitFor("the stray", () => Number(readFileSync(pidFile, "utf8")) || null);
  // Counted once the command has become its `sleep 60`: a process in the middle of exec shows no environment
  // for a moment, and CI once counted 1 here (the stray alone).
  await waitFor("the command's sleep", () => readFileSync(`/proc/${cmd.pid}/cmdline`, "utf8").startsWith("sleep\0") || null);
  expect(await endRunLeftovers(d, started)).toBeGreaterThanOrEqual(2);
  await waitGone("the stray", stray);
  await cmd.done;
}, 60_000);
