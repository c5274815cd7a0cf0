// --audit's options (issue 34 part 1) come from the one options table: flags, a config file's `"audit": true`,
// --dry-run showing who would audit; their mistakes are refused before anything is written.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

test('"audit": true in .wt-loop.json turns it on; --dry-run names the auditor (the --review agent) and its rounds', async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  writeFileSync(join(repo, ".wt-loop.json"), JSON.stringify({ audit: true, "audit-rounds": 3 }));
  const r = await wtLoop(["start", "--dry-run", "--review", "command", "--review-cmd", "cat", "--audit-model", "m1"], { cwd: repo });
  expect({ code: r.code, err: r.stderr }).toMatchObject({ code: 0 });
  expect(r.stdout).toMatch(/Audit: +sh -c cat < audit prompt \(--audit: .*at most 3 rounds\)/);
  expect(r.stdout).toContain(".wt-loop.json: --audit, --audit-rounds");
  expect(existsSync(join(repo, ".claude"))).toBe(false);
});

test.each([
  [["--audit-cmd", "./a.sh"], "--audit-cmd is only used with --audit"],
  [["--audit", "--audit-agent", "command"], "--audit-agent command needs --audit-cmd CMD"],
  [["--audit", "--audit-rounds", "0"], "--audit-rounds must be at least 1"],
  [["--audit", "--done", "manual", "do it"], "--audit needs a tasks file"],
])("start %p is refused, naming the mistake; nothing is written", async (args, said) => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const r = await wtLoop(["start", "--terminal", "inline", ...args], { cwd: repo });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(said);
  expect(r.stderr).not.toContain("    at ");
  expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
});
