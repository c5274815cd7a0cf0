// `git clean -fdx` is a common "start from a clean tree" step, in an agent's hands or in a --verify
// command. It removes every ignored file — the loop's own `.claude/` folder (state, event log, run
// logs) included, as git is told to ignore it. The loop must carry on and keep telling the truth:
// its later iterations' logs are written, and its events land in an event log `monitor`, `log` and
// `status` can read (not in a file that no longer has a name).
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { readEvents } from "../helpers/cli.ts";
import { TWO_STORIES as TWO } from "../helpers/fixtures.ts";

describe("git clean -fdx during the loop", () => {
  const once = `${tempDir()}/cleaned`; // the first run cleans, the second is left to write its log
  for (const [who, steps, args] of [
    ["the agent", [COMPLETE({ git: [["clean", "-fdx"]] }), COMPLETE()], []],
    ["the --verify command", [COMPLETE()], ["--verify", `test -e ${once} || { touch ${once}; git clean -fdx; }`]],
  ] as const)
    test(`run by ${who}: the loop goes on to done, its later logs and events are on disk`, async () => {
      const repo = makeRepo({ "tasks.md": TWO });
      const r = await runLoop(repo, [...steps], ["--on-complete", "keep", ...args]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.state.status).toBe("done");
      expect(r.state.iterations.map((i) => i.outcome)).toEqual(["complete", "complete"]);
      // The second iteration ran after the first one's clean: its log was written where the state says.
      expect(existsSync(r.state.iterations[1]!.log_file)).toBe(true);
      // The event log that readers open holds the loop's ending.
      const events = readEvents(repo);
      expect(events.at(-1)).toMatchObject({ type: "Complete", status: "done" });
      expect(events.filter((e) => e.type === "IterationEnd").at(-1)).toMatchObject({ iteration: 2 });
    }, 60_000);
});
