// `--parallel`, then the runner is killed (kill -9, a closed window) in the middle of an integration, and the user
// does not want to go on: `wt-loop stop` (with or without --cleanup; --cleanup is then done too) must not leave the lanes' worktrees and
// branches, nor the half-moved tree of the integration, for a `start` they may never run. Their work stays
// reachable under the lane refs (docs/parallel.md, "Stop, force-quit and kill -9").
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { collect, readJson, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { laneAgent } from "../helpers/lane-agent.ts";
import { git, makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("stop after a kill -9 of a parallel run", () => {
  test("cut in an integration: `stop` undoes it and closes every lane; your files and the lanes' work are kept", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, "README.md": "readme\n" });
    writeFileSync(join(repo, "README.md"), "readme\nmine, uncommitted\n");
    writeFileSync(join(repo, "notes.txt"), "my notes\n");
    const hold = join(repo, "..", "hold");
    const held = join(repo, "..", "held");
    writeFileSync(hold, "");
    // The verify on the integrated tree (it runs in the main worktree) waits while `hold` exists.
    const verify = `if [ "$(pwd)" = "${repo}" ]; then : > "${held}"; i=0; while [ -f "${hold}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; fi`;
    const agent = laneAgent();
    const args = [
      "start",
      "--plain",
      "--terminal",
      "inline",
      "--agent",
      "command",
      "--agent-cmd",
      agent.cmd,
      "--on-complete",
      "keep",
      "--parallel",
      "2",
      "--verify",
      verify,
    ];
    const proc = spawnWtLoop(args, { cwd: repo, env: agent.env, stdout: "pipe", stderr: "ignore" });
    const out = collect(proc.stdout);
    await waitFor("an integration to be under way", () => existsSync(held), 90_000, { whileRunning: proc }).catch((e) => {
      throw new Error(`${e.message}: ${out.text().slice(-1500)}`);
    });
    proc.kill("SIGKILL");
    await proc.exited;
    rmSync(hold);
    expect(git(repo, "worktree", "list").split("\n").length).toBeGreaterThan(1);

    const r = await wtLoop(["stop", "--cleanup"], { cwd: repo });
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining("lanes were closed")]);
    expect(r.stdout).toContain("`wt-loop start` does the stories not integrated again.");
    expect(git(repo, "worktree", "list").split("\n").length).toBe(1);
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/wt-loop/")).toBe("");
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")).not.toContain("integrating");
    // --cleanup was done (the runner being dead does not drop it): back on main, the loop branch's tree (not a
    // half-moved one) left as uncommitted changes, the loop branch deleted.
    expect(r.stdout).toContain("Back on main with all the loop's work as uncommitted changes");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/ralph/")).toBe("");
    expect(readJson<State>(join(repo, ".claude/loop-state.json")).lanes).toEqual([]);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("readme\nmine, uncommitted\n");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("my notes\n");
    // Every story's work is on the loop branch or under a lane ref.
    const kept = git(repo, "for-each-ref", "--format=%(refname)", "refs/wt-loop/")
      .split("\n")
      .filter((l) => l.includes("/lane-"));
    for (const s of ["1", "2"]) {
      const onBranch = existsSync(join(repo, `s${s}.txt`)); // the loop branch's work, uncommitted after the cleanup
      const inRef = kept.some((ref) => git(repo, "ls-tree", "--name-only", ref).split("\n").includes(`s${s}.txt`));
      expect([s, onBranch || inRef]).toEqual([s, true]);
    }
    // The lanes' work the cleanup did not bring back (at least the lane cut in its integration) is named.
    expect(kept.length).toBeGreaterThan(0);
    for (const ref of kept) expect(r.stdout).toContain(ref);
  }, 200_000);
});
