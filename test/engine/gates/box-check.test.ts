// The box check (SPEC §5) is a fact about the tree that is kept: a --verify command runs after it
// and its changes are part of the candidate, so a command that un-ticks a box or deletes the tasks
// file must not have that tree accepted as a finished story. And a tasks file the agent deleted is
// the agent's failed attempt (rejected, reverted, retried), not a failure of wt-loop.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runEngine, tickStory } from "../../helpers/engine.ts";
import { git, makeRepo } from "../../helpers/repo.ts";

const ONE = "# Tasks\n\n## 1. One\n- [ ] 1.1 make x\n";

describe("the box check stands after --verify", () => {
  for (const [what, verify] of [
    ["un-ticks the box", "git checkout -- tasks.md"],
    ["deletes the tasks file", "rm tasks.md"],
  ] as const)
    test(`a verify command that passes but ${what}: rejected and reverted, nothing committed`, async () => {
      const repo = makeRepo({ "tasks.md": ONE });
      const base = git(repo, "rev-parse", "HEAD");
      const r = await runEngine(repo, [tickStory("1", "echo x > x.txt")], { verify, maxRetries: 1 });
      expect(r.state.error).toBeNull();
      expect(r.state.status).toBe("stuck");
      expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected"]);
      expect(r.state.iterations[0]!.reason).toContain("The verify command passed, but");
      expect(r.state.iterations[0]!.reason).toContain("tasks");
      expect(r.state.iterations[0]!.commits).toEqual([]);
      expect(r.state.stories_completed).toBe(0);
      // Nothing of the attempt is on the loop's branch beyond the initial state.
      expect(git(repo, "log", "--format=%s", `${base}..HEAD`)).toBe("initial state");
      expect(git(repo, "show", "HEAD:tasks.md")).toContain("- [ ] 1.1 make x"); // (the last attempt's tree is left to look at)
    });
});

test("an agent that deletes the tasks file and claims COMPLETE: rejected, reverted, the retry sees the file again", async () => {
  const repo = makeRepo({ "tasks.md": ONE });
  const r = await runEngine(repo, [tickStory("1", "rm tasks.md"), `ls > "$AGENT_DIR/ls-2.txt"\n${tickStory("1", "echo x > x.txt")}`], { stallThreshold: 5 });
  expect(r.state.error).toBeNull();
  expect(r.state.status).toBe("done");
  expect(r.state.iterations.map((i) => i.outcome)).toEqual(["rejected", "complete"]);
  expect(r.state.iterations[0]!.reason).toContain("tasks.md");
  expect(readFileSync(join(r.agentDir, "ls-2.txt"), "utf8")).toContain("tasks.md");
  expect(existsSync(join(repo, "x.txt"))).toBe(true);
});
