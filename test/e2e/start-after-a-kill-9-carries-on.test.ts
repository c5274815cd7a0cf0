// The runner of a loop with `--agent command` is killed with SIGKILL (a laptop losing power): its
// state still says `running`. A plain `wt-loop start` — no `status` first — records the dead runner
// as `status` would and carries on with the remembered agent, saying so; `--dry-run` shows the
// remembered agent and writes nothing.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { FAKE_BIN, spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let sleeper = 0;
afterEach(() => {
  // The first run's agent (our test started it, through the runner) if the fix did not end it.
  if (sleeper && isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
});

test("after kill -9 of the runner, a plain start carries on with the remembered agent to done; --dry-run shows it", async () => {
  const repo = makeRepo();
  const dir = tempDir("kill9-agent-");
  const agent = join(dir, "agent.sh");
  const env = {
    FINISH: join(dir, "finish"),
    STARTED: join(dir, "started"),
    RUNS: join(dir, "runs.txt"),
    // As on the user's machine: no `claude` on PATH, so falling back to the default agent fails.
    PATH: testPath()
      .split(":")
      .filter((p) => p !== FAKE_BIN)
      .join(":"),
  };
  // First run: hangs until killed. Once FINISH exists: says the work is complete.
  writeFileSync(
    agent,
    '#!/bin/sh\ncat > /dev/null\necho ran >> "$RUNS"\nif [ -e "$FINISH" ]; then echo "<promise>COMPLETE</promise>"; exit 0; fi\necho $$ > "$STARTED"\nexec sleep 600\n',
  );
  chmodSync(agent, 0o755);
  const runner = spawnWtLoop(
    ["start", "Write the thing", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent, "--done", "manual", "--max", "5", "--on-complete", "keep"],
    { cwd: repo, env, stdout: "ignore", stderr: "ignore" },
  );
  await waitFor("the agent to start", () => existsSync(env.STARTED) && readFileSync(env.STARTED, "utf8").endsWith("\n"), 30_000, { whileRunning: runner });
  sleeper = Number(readFileSync(env.STARTED, "utf8"));
  runner.kill("SIGKILL");
  await runner.exited;
  expect(readState(repo)).toMatchObject({ status: "running", runner_pid: runner.pid });
  writeFileSync(env.FINISH, "");

  const dry = await wtLoop(["start", "--terminal", "inline", "--dry-run"], { cwd: repo, env });
  expect([dry.code, dry.stderr]).toEqual([0, expect.stringContaining("is no longer alive")]);
  expect(dry.stdout).toContain("Continuing the previous loop (stopped) with its options");
  expect(dry.stdout).toContain(`Agent:     sh -c ${agent}`);
  expect(readState(repo)).toMatchObject({ status: "running", runner_pid: runner.pid }); // a dry run writes nothing

  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env });
  expect(again.stderr).not.toContain("not installed");
  expect(again.stderr).toContain(`The loop's runner (pid ${runner.pid}) is no longer alive`);
  expect(again.stdout).toContain("Continuing the previous loop (stopped) with its options");
  expect(again.stdout).toContain(`--agent command --agent-cmd ${agent}`);
  expect(again.code).toBe(0);
  expect(readState(repo)).toMatchObject({ status: "done", agent: "command", agent_cmd: agent, task: "Write the thing" });
  expect(readFileSync(env.RUNS, "utf8").trim().split("\n")).toHaveLength(2);
  expect(isAlive(sleeper)).toBe(false); // the dead runner's agent was ended by the correction
}, 90_000);
