// `run` on a terminal lists the plan's stories as soon as the plan is read: the first checkpoint, the
// sandbox and the agent's start come after, and may take a while (a big repository, a slow disk). A git
// that waits at the first checkpoint (test/fixtures/git-hang, run just before its call) holds the loop
// there; the stories must be on the screen meanwhile, and the loop then goes on to done. Earlier still,
// before the checkpoint's pre-flight checks (an operation in progress, a commit, a foreign ralph/ branch):
// git held at the first of them, the stories are already listed (issue 35: stories ≤ 400 ms).
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { ROOT } from "../helpers/cli.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();

describeWithTmux("the loop screen shows the plan before the loop begins", () => {
  for (const [where, holdOn, what] of [
    // The branch checkpoint's first commit: only the loop's own start makes it, after the plan is read.
    ["the first checkpoint is still being taken", "wt-loop: initial state", "the first checkpoint"],
    // `git rev-parse --git-path MERGE_HEAD`: the pre-flight's look for a merge in progress, after the plan is read.
    ["git still answers the checkpoint's pre-flight checks", "MERGE_HEAD", "the pre-flight's look for a merge"],
  ] as const)
    test(`the plan's stories are listed while ${where}; released, the loop goes on to done`, async () => {
      const tmux = compiled.tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const dir = tempDir("plan-first-");
      const [flag, reached, release] = ["hang.flag", "reached", "release"].map((f) => join(dir, f)) as [string, string, string];
      writeFileSync(flag, "");
      const { env } = compiled.envFor([COMPLETE(), COMPLETE()]);
      const held = {
        ...env,
        PATH: `${join(ROOT, "test/fixtures/git-hang")}:${env.PATH}`,
        REAL_GIT: Bun.which("git")!,
        FAKE_GIT_HANG: flag,
        FAKE_GIT_HANG_ON: holdOn,
        FAKE_GIT_BEFORE: `: > ${reached}; while [ ! -e ${release} ]; do sleep 0.05; done`,
      };
      const pane = tmux.start(repo, held, `wt-loop run --on-complete keep --command-timeout 300; echo "EXIT=$?"; sleep 60`);
      await tmux.waitFor(`${what} to be reached`, () => existsSync(reached));
      await tmux.waitFor(
        "both stories of the plan on the screen",
        () => /1\. First story/.test(tmux.capture(pane)) && /2\. Second story/.test(tmux.capture(pane)),
      );
      expect(tmux.capture(pane)).not.toMatch(/iteration 1\//); // the loop has not begun: no story is running yet
      writeFileSync(release, "");
      await tmux.waitFor("the loop done", () => /✓ 2\. Second story/.test(tmux.capture(pane)) && tmux.capture(pane).includes("r result"));
      tmux.keys(pane, "q");
      await tmux.waitFor("the exit code", () => /EXIT=0/.test(tmux.capture(pane)));
      expect(readState(repo).status).toBe("done");
    }, 90_000);
});
