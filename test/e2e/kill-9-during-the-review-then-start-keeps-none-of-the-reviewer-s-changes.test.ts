// --review, one story after another: the runner is killed with SIGKILL while the reviewer runs, after the reviewer
// changed the tree. A plain `wt-loop start` puts back what the reviewer changed before anything else, then attempts
// the story again (its work was never accepted): nothing of the reviewer's ends up in the loop's commits.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/proc/pid.ts";
import { wtLoop } from "../helpers/cli.ts";
import { gateLoop, killRunnerInGate, letGateAnswer } from "../helpers/kill-in-gate.ts";
import { readState } from "../helpers/fixtures.ts";
import { git, makeRepo } from "../helpers/repo.ts";

let sleeper = 0;
afterEach(() => {
  if (sleeper && isAlive(sleeper)) process.kill(sleeper, "SIGKILL");
});

test("kill -9 while the reviewer has changed the tree: start puts it back, the story is done again, none of it is committed", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 write hello.txt\n", "other.txt": "other\n" });
  // The first review changes a file the story never touches and leaves notes, then hangs until killed; later: APPROVE.
  const loop = gateLoop("kill9-review-", {
    finish: 'cat > /dev/null; echo "<review>APPROVE</review>"',
    firstRun: "echo scribbled > other.txt\necho notes > review-notes.txt",
  });
  const { env } = loop;
  const args = ["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", loop.agent, "--review", "command", "--review-cmd", loop.gate];
  sleeper = await killRunnerInGate(repo, loop, [...args, "--on-complete", "keep"]);
  letGateAnswer(loop);

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
