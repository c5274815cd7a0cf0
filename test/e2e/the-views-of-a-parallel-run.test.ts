// The views of a real `--parallel` run (docs/parallel.md): two independent stories run at once, a third
// waits for both (`## 3. C (after 1, 2)`). Afterwards `history` lists the overlapping iterations in the
// order they began and says their time once, and `log --story N` shows exactly that story's lane, its
// steps included.
import { expect, test } from "bun:test";
import { readEvents, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE, WAIT_FOR_STARTS } from "../helpers/lane-agent.ts";
import { makeRepo } from "../helpers/repo.ts";

const TASKS = "# Tasks\n\n## 1. A\n- [ ] 1.1 do\n\n## 2. B\n- [ ] 2.1 do\n\n## 3. C (after 1, 2)\n- [ ] 3.1 do\n";

test("a prerequisite waits for both integrations; history and log --story read right though lanes overlapped", async () => {
  const repo = makeRepo({ "tasks.md": TASKS });
  const agent = laneAgent({ "1": WAIT_FOR_STARTS(2) + TICK_AND_WRITE, "2": WAIT_FOR_STARTS(2) + TICK_AND_WRITE });
  const r = await wtLoop(
    ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "3"],
    {
      cwd: repo,
      env: agent.env,
      timeoutMs: 180_000,
    },
  );
  expect(r.code).toBe(0);

  // Story 3 began only once 1 and 2 were integrated.
  const events = readEvents(repo);
  const at = (pred: (e: any) => boolean) => events.findIndex(pred);
  const began3 = at((e) => e.type === "StoryProgress" && e.story_id === "3");
  for (const s of ["1", "2"]) expect(at((e) => e.type === "Lane" && e.step === "integrated" && e.story_id === s)).toBeLessThan(began3);

  const history = await wtLoop(["history"], { cwd: repo });
  const rows = history.stdout
    .trim()
    .split("\n")
    .slice(1, 4)
    .map((l) => l.split(/\s+/).slice(0, 4));
  expect(rows.map((x) => x[0])).toEqual(["1", "2", "3"]);
  expect(rows.map((x) => x[3])).toEqual(["complete", "complete", "complete"]);
  expect(history.stdout).toMatch(/Total: 3 iterations · \S+( \S+)? \(\S+( \S+)? of iterations side by side\)/);

  for (const story of ["1", "2"]) {
    const log = await wtLoop(["log", "--story", story], { cwd: repo });
    expect(log.code).toBe(0);
    const other = story === "1" ? "2" : "1";
    expect(log.stdout).toContain(`━━ repo · story ${story}/3`);
    expect(log.stdout).not.toContain(`story ${other}/3`);
    expect(log.stdout).not.toContain(`lane opened for story ${other}`);
    // Its lane's steps, after its heading: opened, accepted, integrated, removed.
    const text = log.stdout.slice(log.stdout.indexOf("━━ repo"));
    for (const step of [
      `lane opened for story ${story}`,
      `story ${story} (iteration`,
      "accepted in its lane",
      "integrated: 1 commit",
      `lane of story ${story} (iteration`,
    ])
      expect(text).toContain(step);
  }
}, 200_000);
