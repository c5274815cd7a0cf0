// An agent that replaces the loop's `.claude/` folder with a file leaves the runner nowhere to write
// its events, logs or state. The loop cannot go on (whose file is it to move?), but it ends with one
// error that reads as a sentence, and no second one about a descriptor it had already closed.
import { expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

test("`.claude` turned into a file mid-attempt: one clear fatal error, no EBADF, no '..'", async () => {
  const repo = makeRepo();
  const agent = fakeAgent(
    [{ git: [["-c", "alias.x=!sh -c 'rm -rf .claude && echo mine > .claude'", "x"]], write: { [join(repo, "b.txt")]: "b\n" } }, { promise: "COMPLETE" }],
    tempDir("fake-agent-"),
  );
  const r = await wtLoop(["start", "Write the thing", "--done", "manual", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: agent.env });
  expect(r.code).toBe(1);
  expect(statSync(join(repo, ".claude")).isFile()).toBe(true); // the agent's file is left as it is
  expect(readFileSync(join(repo, ".claude"), "utf8")).toBe("mine\n");
  const said = r.stdout + r.stderr;
  expect(said).toContain(`could not open ${join(repo, ".claude/loop-events.jsonl")}: EEXIST, something else already exists there.`);
  expect(said).not.toContain("EBADF");
  expect(said).not.toMatch(/\.\.(\s|$)/);
});
