// --review, one story after another: the runner is killed with SIGKILL while the reviewer runs, after the reviewer
// changed the tree. A plain `wt-loop start` puts back what the reviewer changed before anything else, then attempts
// the story again (its work was never accepted): nothing of the reviewer's ends up in the loop's commits.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let sleeper = 0;
afterEach(() => {
  if (sleeper && isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
});

test("kill -9 while the reviewer has changed the tree: start puts it back, the story is done again, none of it is committed", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n", "other.txt": "other\n" });
  const dir = tempDir("kill9-review-");
  const env = { FINISH: join(dir, "finish"), STARTED: join(dir, "started"), AGENT_RUNS: join(dir, "agent-runs"), PATH: testPath() };
  const agent = join(dir, "agent.sh");
  writeFileSync(
    agent,
    '#!/bin/sh\ncat > /dev/null\necho ran >> "$AGENT_RUNS"\necho hello > hello.txt\nsed -i "s/- \\[ \\]/- [x]/" tasks.md\necho "<promise>COMPLETE</promise>"\n',
  );
  // The first review changes a file the story never touches, leaves notes, then hangs until killed. Once FINISH exists: APPROVE.
  const reviewer = join(dir, "reviewer.sh");
  writeFileSync(
    reviewer,
    '#!/bin/sh\ncat > /dev/null\nif [ -e "$FINISH" ]; then echo "<review>APPROVE</review>"; exit 0; fi\n' +
      'echo scribbled > other.txt\necho notes > review-notes.txt\necho $$ > "$STARTED"\nexec sleep 600\n',
  );
  chmodSync(agent, 0o755);
  chmodSync(reviewer, 0o755);
  const args = [
    "start",
    "--terminal",
    "inline",
    "--agent",
    "command",
    "--agent-cmd",
    agent,
    "--review",
    "command",
    "--review-cmd",
    reviewer,
    "--on-complete",
    "keep",
  ];
  const runner = spawnWtLoop(args, { cwd: repo, env, stdout: "ignore", stderr: "ignore" });
  await waitFor("the reviewer to start", () => existsSync(env.STARTED) && readFileSync(env.STARTED, "utf8").endsWith("\n"), 60_000, { whileRunning: runner });
  sleeper = Number(readFileSync(env.STARTED, "utf8"));
  runner.kill("SIGKILL");
  await runner.exited;
  writeFileSync(env.FINISH, "");

  const again = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env, timeoutMs: 120_000 });
  expect({ code: again.code, out: again.stdout.slice(-1500), err: again.stderr }).toMatchObject({ code: 0 });
  expect(again.stdout + again.stderr).toContain("put back what the reviewer had changed (other.txt (modified), review-notes.txt (added))");
  expect(readState(repo).status).toBe("done");
  expect(readFileSync(env.AGENT_RUNS, "utf8").trim().split("\n")).toHaveLength(2); // never accepted: attempted again
  expect(readFileSync(join(repo, "other.txt"), "utf8")).toBe("other\n");
  expect(existsSync(join(repo, "review-notes.txt"))).toBe(false);
  const branch = readState(repo).checkpoint_branch;
  expect(git(repo, "diff", "--name-only", "main", branch).split("\n").sort()).toEqual(["hello.txt", "tasks.md"]);
}, 180_000);
