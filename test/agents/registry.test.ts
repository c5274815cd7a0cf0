// Whether the command agent's program exists is asked of PATH only for a program: a shell builtin
// (`true`, `:`, `echo …`) runs under `sh -c` whatever PATH holds.
import { describe, expect, test } from "bun:test";
import { checkAgent, plainProgram } from "../../src/agents/registry.ts";
import { UserError } from "../../src/errors.ts";
import { tempDir } from "../helpers/repo.ts";

const emptyPath = () => tempDir("empty-path-");

describe("checkAgent --agent command", () => {
  test.each(["true", ":", "echo '<promise>COMPLETE</promise>'", "printf done", "read line; echo $line"])(
    "a shell builtin is accepted with nothing on PATH: %s",
    (cmd) => {
      expect(() => checkAgent("command", { agentCmd: cmd }, emptyPath())).not.toThrow();
    },
  );
  test("a program not on PATH is refused, named", () => {
    expect(() => checkAgent("command", { agentCmd: "my-agent --fast" }, emptyPath())).toThrow(
      new UserError("The agent command 'my-agent' was not found. Check --agent-cmd (it runs with sh -c in the worktree, the prompt on stdin)."),
    );
  });
  test("a path is a program", () => {
    expect(plainProgram("./agent.sh")).toBe("./agent.sh");
  });
});
