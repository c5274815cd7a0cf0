// A git call of the harness that times out while taking the checkpoint, reverting, accepting or
// cleaning up is not the agent's failure: nothing is reverted, cleaned or dropped, the loop ends
// stuck with an error and completion `keep`, and the reason names where the user's work is — with
// branch and stash checkpoints, every kind of user work intact byte for byte.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { git, tempDir } from "../helpers/repo.ts";
import { AGENT_FILE, expectIntact, HANG_ON, hangEnv, ralphStashes, record, userWorkRepo, type Mode, type Point } from "../checkpoint/user-work.ts";

/** The agent's script for each point: the flag file appears when the point is next. */
function script(point: Point, repo: string, flag: string): object[] {
  const mine = { [join(repo, AGENT_FILE)]: "agent's attempt\n", [join(repo, "junk.txt")]: "junk\n" };
  switch (point) {
    case "checkpoint":
      return [COMPLETE()];
    case "revert":
      return [{ promise: "FAILED: no", write: { ...mine, [flag]: "" } }, COMPLETE()];
    case "accept":
      return [COMPLETE({ write: { ...mine, [flag]: "" } })];
    case "cleanup":
      return [{ promise: "FAILED: no", write: { ...mine, [flag]: "" } }];
  }
}

describe.each(["branch", "stash"] as const)("%s checkpoints", (mode) => {
  test.each(["checkpoint", "revert", "accept", "cleanup"] as const)(
    "a git call that times out during the %s loses nothing and ends the loop stuck",
    async (point) => {
      const repo = userWorkRepo();
      const before = record(repo);
      const flag = join(tempDir("hang-"), "hang.flag");
      if (point === "checkpoint") await Bun.write(flag, "");
      const args = ["--checkpoint", mode, "--command-timeout", "2", "--on-complete", "cleanup", ...(point === "cleanup" ? ["--max-retries", "1"] : [])];
      const r = await runLoop(repo, script(point, repo, flag), args, hangEnv(flag, HANG_ON[point][mode]));

      expect(existsSync(`${flag}.hanging`)).toBe(true); // the hang really happened where intended
      expect(r.code).toBe(2);
      expect(r.state.status).toBe("stuck");
      expect(r.state.error).toContain("timed out");
      expect(r.state.iterations.every((i) => i.outcome !== "timeout")).toBe(true); // never the agent's timeout
      expect(r.calls()).toBe(point === "checkpoint" ? 0 : 1); // no retry after a harness failure
      if (point !== "cleanup") expect(r.state.completion).not.toBe("cleanup"); // keep is forced (none when nothing began)
      // Nothing was reverted or cleaned: the agent's attempt is still in the tree.
      if (point === "revert" || point === "accept") expect(readFileSync(join(repo, "junk.txt"), "utf8")).toBe("junk\n");

      const onOwnBranch = git(repo, "branch", "--show-current") === "main";
      expectIntact(repo, before, { staged: onOwnBranch && point !== "accept" });
      if (mode === "stash" && point !== "checkpoint") {
        // The checkpoint is a stash entry the reason names, holding the user's work.
        const [sha] = ralphStashes(repo);
        expect(sha).toBeTruthy();
        if (point !== "cleanup") expect(r.state.reason).toContain(`git stash apply ${sha}`);
        expect(git(repo, "show", `${sha}:app.txt`)).toBe("v2 (uncommitted)");
        expect(git(repo, "show", `${sha}^2:part.txt`)).toBe("p2 staged");
        expect(git(repo, "show", `${sha}^3:notes.txt`)).toBe("untracked notes");
      }
      if (mode === "branch" && point !== "checkpoint") {
        expect(git(repo, "show", "ralph/repo:app.txt")).toBe("v2 (uncommitted)");
        if (point !== "cleanup") expect(r.state.reason).toContain("ralph/repo");
      }
    },
    60_000,
  );
});
