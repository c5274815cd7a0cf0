// `--verify CMD` through the CLI, as a user runs it: the real fake `claude`, a verify that fails
// once then passes. The loop ends done; history shows the command's exit and duration (its log
// file in --json); the dry run and a restart name the command.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { wtLoop } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";

test("--verify that fails once then passes: done, the second prompt carries its output, history shows each run of it", async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  // Fails until the agent has written ok.txt (its second run does).
  const verify = "echo checking; test -f ok.txt || { echo 'ok.txt is missing' >&2; exit 7; }";
  const dry = await wtLoop(["start", "--dry-run", "--verify", verify], { cwd: repo });
  expect(dry.stdout).toContain(`Verify:    ${verify}`);
  expect(dry.stdout).toContain(`the harness runs this command in the worktree: \`${verify}\``);

  const r = await runLoop(repo, [COMPLETE(), COMPLETE({ write: { "ok.txt": "ok\n" } }), COMPLETE()], ["--verify", verify, "--on-complete", "keep"]);
  expect(r.code).toBe(0);
  expect(r.state.iterations.map((i) => [i.story_id, i.outcome, i.verify?.exit_code])).toEqual([
    ["1", "rejected", 7],
    ["1", "complete", 0],
    ["2", "complete", 0],
  ]);
  expect(r.prompt(1)).toContain(verify);
  expect(r.prompt(2)).toContain("failed (exit 7");
  expect(r.prompt(2)).toContain("ok.txt is missing");
  expect(r.stdout).toContain(`▸ verify: ${verify}`);
  expect(r.stdout).toContain("◆ verify failed (exit 7)");
  expect(r.stdout).toContain("◆ verify passed");
  expect(readFileSync(r.state.iterations[0]!.verify!.log_file, "utf8")).toBe("checking\nok.txt is missing\n");

  const history = await wtLoop(["history"], { cwd: repo });
  expect(history.stdout).toMatch(/\bverify\b/);
  expect(history.stdout).toMatch(/exit 7 \d+s/);
  const json = JSON.parse((await wtLoop(["history", "--json"], { cwd: repo })).stdout);
  expect(json.iterations[0].verify).toMatchObject({ exit_code: 7, timed_out: false, log_file: r.state.iterations[0]!.verify!.log_file });
  expect(typeof json.iterations[0].verify.duration_ms).toBe("number");
}, 60_000);

test("a restart remembers --verify and --verify-timeout", async () => {
  const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
  const r = await runLoop(repo, [COMPLETE()], ["--verify", "exit 1", "--verify-timeout", "2", "--max-retries", "1", "--on-complete", "keep"]);
  expect(r.code).toBe(2);
  const again = await wtLoop(["start", "--dry-run"], { cwd: repo });
  expect(again.stdout).toContain("--verify 'exit 1' --verify-timeout 2"); // the restart note, as flags
  expect(again.stdout).toContain("Verify:    exit 1 (sh -c, after each COMPLETE; limit 2 min)");
}, 60_000);
