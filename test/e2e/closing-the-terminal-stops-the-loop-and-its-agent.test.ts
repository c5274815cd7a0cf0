// Closing the terminal a loop runs in, whatever started it, stops the loop: its agent is ended, the
// state says stopped with the completion answered keep, the lock is released — within seconds, and
// nothing of ours outlives the runner. With the compiled binary, whose `--no-orphans` made the kernel
// SIGKILL the runner when the shell it was typed in exited (issue 35), before it heard the hang-up.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { lockPath } from "../../src/state/paths.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { testPath } from "../helpers/cli.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { describeWithTmux } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait.ts";

const GONE_MS = 10_000;
const t = compiledInTmux();
const leftover: number[] = [];
const cleanup = () => {
  for (const pid of leftover.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
};

/** A bash startup file that sets only a plain prompt. */
function promptRc(): string {
  const rc = join(tempDir("bashrc-"), "rc");
  writeFileSync(rc, "PS1='$ '\n");
  return rc;
}

/** An agent that hangs and leaves a grandchild in a session of its own (out of reach of a group kill). */
const HANGING = [{ hangSec: 300, setsidGrandchild: true }];

/** After the terminal went away: runner, agent and grandchild gone, stopped and kept, no lock. */
async function expectStopped(repo: string, s: { runner_pid: number; agent_pid: number }, agentDir: string): Promise<void> {
  await waitFor(`the runner (pid ${s.runner_pid}) to end`, () => !isAlive(s.runner_pid), GONE_MS);
  expect(readState(repo)).toMatchObject({ status: "stopped", completion: "keep", runner_pid: null, agent_pid: null });
  expect(existsSync(lockPath(repo))).toBe(false);
  expect(isAlive(s.agent_pid)).toBe(false);
  const grandchild = Number(readFileSync(join(agentDir, "setsid.pid"), "utf8"));
  leftover.push(grandchild);
  expect(isAlive(grandchild)).toBe(false);
}

describeWithTmux("closing the terminal stops the loop and its agent (compiled binary)", () => {
  for (const screen of [true, false]) {
    const args = screen ? "run --on-complete ask" : "run --plain --on-complete ask";
    test(`typed in a shell (\`wt-loop ${args}\`), the pane killed`, async () => {
      try {
        const tmux = t.tmux();
        const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
        const { env, dir } = t.envFor(HANGING);
        // An interactive shell as the pane's own process (the session leader the hang-up ends, as in
        // any terminal), a person typing in it: wt-loop is its child, in a job of its own.
        const pane = tmux.start(repo, env, `exec bash --noprofile --rcfile ${promptRc()} -i`);
        await tmux.waitFor("the prompt", () => tmux.capture(pane).includes("$"));
        tmux.keys(pane, `${t.bin()} ${args}`, "Enter");
        const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "setsid.pid")) && readState(repo).agent_pid && readState(repo));
        leftover.push(s.runner_pid, s.agent_pid);
        tmux.tmux("kill-pane", "-t", pane);
        await expectStopped(repo, s, dir);
      } finally {
        cleanup();
      }
    }, 90_000);
  }

  test("typed `wt-loop` in a shell, Enter on the change, R (the loop here), the pane killed", async () => {
    try {
      const tmux = t.tmux();
      const { main: repo } = selectionRepo();
      const { env, dir } = t.envFor(HANGING, { PATH: `${dirname(t.bin())}:${testPath({ openspec: true })}`, OPENSPEC_TELEMETRY: "0" });
      const pane = tmux.start(repo, env, `exec bash --noprofile --rcfile ${promptRc()} -i`);
      await tmux.waitFor("the prompt", () => tmux.capture(pane).includes("$"));
      tmux.keys(pane, t.bin(), "Enter");
      await tmux.waitFor("the selection", () => tmux.capture(pane).includes("›◆ add-greeting"), 60_000);
      tmux.keys(pane, "Enter");
      await tmux.waitFor("the preview", () => /Tasks\s+Scenarios\s+Prompt/.test(tmux.capture(pane)), 60_000);
      tmux.keys(pane, "R");
      const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "setsid.pid")) && readState(repo).agent_pid && readState(repo), 60_000);
      leftover.push(s.runner_pid, s.agent_pid);
      tmux.tmux("kill-pane", "-t", pane);
      await expectStopped(repo, s, dir);
    } finally {
      cleanup();
    }
  }, 120_000);

  test("under nohup, typed in a shell that then exits: the runner goes on to done (it outlives its parent, as nohup asks)", async () => {
    try {
      const tmux = t.tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const gate = join(tempDir("gate-"), "go");
      const { env, dir } = t.envFor([COMPLETE({ waitFile: gate }), COMPLETE()]);
      const pane = tmux.start(repo, env, `exec bash --noprofile --rcfile ${promptRc()} -i`);
      await tmux.waitFor("the prompt", () => tmux.capture(pane).includes("$"));
      tmux.keys(pane, `nohup ${t.bin()} run --plain --on-complete keep > loop.out 2>&1 &`, "Enter");
      const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).runner_pid && readState(repo));
      leftover.push(s.runner_pid);
      tmux.tmux("kill-pane", "-t", pane); // the shell goes; the runner was its child
      writeFileSync(gate, "");
      await waitFor("the loop to be done", () => readState(repo).status === "done" && readState(repo).runner_pid === null, 60_000);
      // The lock is let go after the last state is written: look once the runner has ended.
      await waitFor(`the runner (pid ${s.runner_pid}) to end`, () => !isAlive(s.runner_pid), GONE_MS);
      expect(readState(repo).completion).toBe("keep");
      expect(existsSync(lockPath(repo))).toBe(false);
    } finally {
      cleanup();
    }
  }, 90_000);

  test("tmux running `wt-loop run` as the window's command (what `start` opens), the window killed", async () => {
    try {
      const tmux = t.tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env, dir } = t.envFor(HANGING);
      const home = tmux.start(repo, env, `${t.bin()} start --on-complete ask; sleep 600`);
      const s = await tmux.waitFor("the agent to run", () => existsSync(join(dir, "setsid.pid")) && readState(repo).agent_pid && readState(repo));
      leftover.push(s.runner_pid, s.agent_pid);
      const window = tmux.panes().find((p) => p.id !== home);
      expect(window).toBeDefined();
      tmux.tmux("kill-window", "-t", window!.id);
      await expectStopped(repo, s, dir);
    } finally {
      cleanup();
    }
  }, 90_000);
});
