// `--parallel`: you keep a file git ignores in your worktree (a `.env` with your secrets). An agent in a lane
// creates the same path and force-adds it (`git add -f`). Integrating that lane would overwrite your file in the
// main worktree — and an ignored file is in no commit, so nothing could bring it back. The integration must not:
// your file stays as it was, the story goes again told why, and the loop ends done.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJson, wtLoop } from "../helpers/cli.ts";
import { laneAgent, TICK_AND_WRITE } from "../helpers/lane-agent.ts";
import { makeRepo } from "../helpers/repo.ts";
import type { State } from "../../src/state/schema.ts";

const STORIES = "# Tasks\n\n## 1. S1\n- [ ] 1.1 do\n\n## 2. S2\n- [ ] 2.1 do\n";

describe("a lane never overwrites a file you keep ignored", () => {
  test("an agent that force-adds your ignored .env: your .env stays yours, the story goes again with the reason", async () => {
    const repo = makeRepo({ "tasks.md": STORIES, ".gitignore": ".env\n" });
    writeFileSync(join(repo, ".env"), "SECRET=yours\n");
    const agent = laneAgent({
      "1": `if [ "$K" = 1 ]; then echo "SECRET=agent" > .env; git add -f .env; git commit -qm "agent .env"; fi\n${TICK_AND_WRITE}`,
    });
    const r = await wtLoop(
      ["start", "--plain", "--terminal", "inline", "--agent", "command", "--agent-cmd", agent.cmd, "--on-complete", "keep", "--parallel", "2"],
      {
        cwd: repo,
        env: agent.env,
        timeoutMs: 180_000,
      },
    );
    expect(readFileSync(join(repo, ".env"), "utf8")).toBe("SECRET=yours\n");
    const state = readJson<State>(join(repo, ".claude/loop-state.json"));
    expect([r.code, state.status]).toEqual([0, "done"]);
    expect(readFileSync(join(agent.dir, "prompt-1-2.txt"), "utf8")).toContain(".env");
  }, 200_000);
});
