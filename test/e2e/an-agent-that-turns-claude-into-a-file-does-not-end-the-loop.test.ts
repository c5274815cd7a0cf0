// An agent that replaces the loop's `.claude/` folder with a file leaves the runner nowhere to write
// its events, logs or state. The loop moves the file aside (it is the agent's output, kept as any
// other), makes its folder again and goes on: it says what it did, loses none of its record (the
// events logged before, the state), and no raw I/O error (ENOTDIR, EBADF) reaches the user.
import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readEvents, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

test("`.claude` turned into a file mid-attempt: the file is moved aside, the loop goes on to done and says so", async () => {
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
echo '<promise>COMPLETE</promise>'
`,
  );
  const r = await wtLoop(
    ["start", "Write the thing", "--done", "manual", "--terminal", "inline", "--on-complete", "keep", "--agent", "command", "--agent-cmd", `sh ${script}`],
    { cwd: repo },
  );
  const said = r.stdout + r.stderr;
  expect(said).not.toMatch(/ENOTDIR|EBADF|not a directory/);
  expect([r.code, readState(repo).status]).toEqual([0, "done"]);
  expect(statSync(join(repo, ".claude")).isDirectory()).toBe(true);
  // The agent's file is kept, next to it, and the user is told where.
  expect(readFileSync(join(repo, ".claude.moved-by-wt-loop"), "utf8")).toBe("mine\n");
  expect(said).toContain(".claude.moved-by-wt-loop");
  expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("b\n");
  // The record is whole: the events from before the agent's act, the move, the end.
  const types = readEvents(repo).map((e) => e.type);
  expect(types[0]).toBe("LoopStarted");
  expect(types).toContain("IterationEnd");
  expect(types.at(-1)).toBe("Complete");
  expect(readEvents(repo).some((e) => e.type === "Error" && e.message.includes(".claude.moved-by-wt-loop"))).toBe(true);
  const status = await wtLoop(["status"], { cwd: repo });
  expect(status.stdout).toContain(": done");
}, 60_000);

test("a `.claude` file of the user's before any loop: start and status explain and leave it alone", async () => {
  const repo = makeRepo({ ".claude": "the user's own file\n" });
  for (const argv of [["start", "Write the thing", "--done", "manual", "--terminal", "inline"], ["status"]]) {
    const r = await wtLoop(argv, { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(repo, ".claude")} is `); // a file where the loop's folder belongs: said as such
    expect(r.stderr).toContain(`mv ${join(repo, ".claude")} `);
    expect(r.stderr).not.toMatch(/ENOTDIR|lstat/);
  }
  expect(readFileSync(join(repo, ".claude"), "utf8")).toBe("the user's own file\n");
}, 60_000);
