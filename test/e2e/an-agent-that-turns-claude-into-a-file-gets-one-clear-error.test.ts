// An agent that replaces the loop's `.claude/` folder with a file leaves the runner nowhere to write
// its events, logs or state. The loop cannot go on (whose file is it to move?), but it ends with one
// error that reads as a sentence, and no second one about a descriptor it had already closed.
import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

test("`.claude` turned into a file mid-attempt: one clear fatal error, no EBADF, no '..'", async () => {
  const repo = makeRepo();
  const script = join(tempDir("agent-"), "agent.sh");
  // The runner must not write between the agent's `rm` and its `echo` (it would make the folder again
  // and the test would race): the agent waits for the save that records it, and prints only after.
  writeFileSync(
    script,
    `cat >/dev/null
while ! grep -qs '"agent_pid": [0-9]' .claude/loop-state.json; do sleep 0.02; done
rm -rf .claude && echo mine > .claude
echo b > b.txt
echo 'done here'
`,
  );
  const r = await wtLoop(["start", "Write the thing", "--done", "manual", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", `sh ${script}`], { cwd: repo });
  expect(r.code).toBe(1);
  expect(statSync(join(repo, ".claude")).isFile()).toBe(true); // the agent's file is left as it is
  expect(readFileSync(join(repo, ".claude"), "utf8")).toBe("mine\n");
  const said = r.stdout + r.stderr;
  expect(said).toContain(`could not open ${join(repo, ".claude/loop-events.jsonl")}: ENOTDIR, a file is in the way of a folder.`);
  expect(said).not.toContain("EBADF");
  expect(said).not.toMatch(/\.\.(\s|$)/);
});
