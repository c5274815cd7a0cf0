/**
 * A one-story loop for the "kill -9 while a gate runs" tests (--review, --audit): an agent that completes the
 * story at once (each run counted in $AGENT_RUNS), and a gate that, the first time, does what it is told to
 * (`firstRun`: scribble on the tree, commit…), writes its pid to $STARTED and hangs until killed; once $FINISH
 * exists it answers with `finish` instead. `killRunnerInGate` starts the loop and SIGKILLs the runner while the gate
 * hangs; `letGateAnswer` writes $FINISH, so the next `start` meets a gate that answers.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnWtLoop, testPath } from "./cli.ts";
import { tempDir } from "./repo.ts";
import { waitFor } from "./wait.ts";

export interface GateLoop {
  dir: string;
  env: { FINISH: string; STARTED: string; AGENT_RUNS: string; PROMPT: string; PATH: string };
  agent: string;
  gate: string;
}

export function gateLoop(prefix: string, script: { before?: string; finish: string; firstRun?: string }): GateLoop {
  const dir = tempDir(prefix);
  const env = {
    FINISH: join(dir, "finish"),
    STARTED: join(dir, "started"),
    AGENT_RUNS: join(dir, "agent-runs"),
    PROMPT: join(dir, "prompt"),
    PATH: testPath(),
  };
  const agent = join(dir, "agent.sh");
  writeFileSync(
    agent,
    '#!/bin/sh\ncat > /dev/null\necho ran >> "$AGENT_RUNS"\necho hello > hello.txt\nsed -i "s/- \\[ \\]/- [x]/" tasks.md\necho "<promise>COMPLETE</promise>"\n',
  );
  const gate = join(dir, "gate.sh");
  writeFileSync(
    gate,
    `#!/bin/sh\n${script.before ?? ""}\nif [ -e "$FINISH" ]; then ${script.finish}; exit 0; fi\ncat > /dev/null\n${script.firstRun ?? ""}\necho $$ > "$STARTED"\nexec sleep 600\n`,
  );
  chmodSync(agent, 0o755);
  chmodSync(gate, 0o755);
  return { dir, env, agent, gate };
}

/** Runs `args` until the gate hangs and kills the runner with SIGKILL; returns the hung gate's pid. */
export async function killRunnerInGate(repo: string, loop: GateLoop, args: string[]): Promise<number> {
  const runner = spawnWtLoop(args, { cwd: repo, env: loop.env, stdout: "ignore", stderr: "ignore" });
  await waitFor("the gate to start", () => existsSync(loop.env.STARTED) && readFileSync(loop.env.STARTED, "utf8").endsWith("\n"), 60_000, {
    whileRunning: runner,
  });
  const pid = Number(readFileSync(loop.env.STARTED, "utf8"));
  runner.kill("SIGKILL");
  await runner.exited;
  return pid;
}

/** Let the gate answer from now on. */
export const letGateAnswer = (loop: GateLoop) => writeFileSync(loop.env.FINISH, "");
