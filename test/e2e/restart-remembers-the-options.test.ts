// A plain `wt-loop start` after a loop ended stuck or stopped continues with that loop's options
// (agent, agent command, model, checkpoint, limits, done criteria), says so, and takes any option
// given now instead of the remembered one. After `done`, a start is new: the defaults apply.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

describe("restart remembers the options", () => {
  test("after stuck, a plain start runs the same agent command with the same options; a given option overrides", async () => {
    const repo = makeRepo();
    const marks = join(tempDir("marks-"), "runs.txt");
    const env = { MARK_FILE: marks };
    // An agent that says nothing: no_signal, and with one attempt per story the loop ends stuck.
    const agentCmd = 'cat > /dev/null; echo ran >> "$MARK_FILE"';
    const first = await wtLoop(
      [
        "start",
        "Write the thing",
        "--terminal",
        "inline",
        "--agent",
        "command",
        "--agent-cmd",
        agentCmd,
        "--model",
        "m-1",
        "--checkpoint",
        "stash",
        "--done",
        "manual",
        "--max",
        "5",
        "--max-retries",
        "1",
        "--stall-threshold",
        "3",
        "--iteration-timeout",
        "7",
        "--command-timeout",
        "40",
        "--on-complete",
        "keep",
        "--notify",
        "true",
      ],
      { cwd: repo, env },
    );
    expect(first.code).toBe(2);
    expect(readState(repo).status).toBe("stuck");

    const again = await wtLoop(["start", "--terminal", "inline", "--max", "4"], { cwd: repo, env });
    expect(again.stdout).toContain("Continuing the previous loop (stuck) with its options");
    expect(again.stdout).toContain("Given here instead: --max");
    expect(again.code).toBe(2);
    expect(readState(repo)).toMatchObject({
      status: "stuck",
      task: "Write the thing",
      agent: "command",
      agent_cmd: agentCmd,
      model: "m-1",
      checkpoint: "stash",
      done_criteria: "manual",
      max_iterations: 4,
      max_retries: 1,
      stall_threshold: 3,
      iteration_timeout_min: 7,
      command_timeout_sec: 40,
      on_complete: "keep",
      terminal: "inline",
      notify: "true",
    });
    expect(readFileSync(marks, "utf8").trim().split("\n")).toHaveLength(2); // the agent command ran in both runs
  }, 60_000);

  test("after done, a start is new: nothing is remembered", async () => {
    const repo = makeRepo();
    const agentCmd = "cat > /dev/null; echo '<promise>COMPLETE</promise>'";
    const first = await wtLoop(
      ["start", "Write it", "--terminal", "inline", "--agent", "command", "--agent-cmd", agentCmd, "--done", "manual", "--max", "5", "--on-complete", "keep"],
      { cwd: repo },
    );
    expect(first.code).toBe(0);
    const again = await wtLoop(["start", "--terminal", "inline", "--dry-run"], { cwd: repo });
    expect(again.stdout).not.toContain("Continuing");
    expect(again.code).toBe(1); // no task and no tasks.md: nothing to do
  }, 60_000);
});
