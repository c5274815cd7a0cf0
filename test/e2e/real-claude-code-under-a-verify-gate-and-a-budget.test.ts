// Issue 12's gate and budgets with the real Claude Code binary (pinned dev dependency) against a
// scripted local model: the cost and tokens the budget counts are the ones the real CLI reports.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { GREET_AND_BYE as TWO } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

/** A story done the way a model would: write the file, tick the box, promise. */
function story(repo: string, file: string, content: string, open: string): Turn[] {
  return [
    { tool: "Write", input: { file_path: join(repo, file), content } },
    { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: `- [ ] ${open}`, new_string: `- [x] ${open}` } },
    { text: "Done. <promise>COMPLETE</promise>" },
  ];
}

async function loop(repo: string, conversations: Turn[][], args: string[]) {
  server = startModelServer(conversations);
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", ...args], {
    cwd: repo,
    env: { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}` },
    timeoutMs: 300_000,
  });
  return { ...r, state: readJson(join(repo, ".claude/loop-state.json")), prompts: server.prompts() };
}

describe("the real Claude Code binary under --verify and a budget", () => {
  test("--verify fails the first COMPLETE: reverted, the next prompt carries the command and its output; the second passes", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    const check = "grep hello greet.txt || { echo 'greet.txt must say hello'; exit 1; }";
    const r = await loop(
      repo,
      [story(repo, "greet.txt", "hi\n", "1.1 Write greet.txt"), story(repo, "greet.txt", "hello\n", "1.1 Write greet.txt")],
      ["--verify", check],
    );
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i: any) => i.outcome)).toEqual(["rejected", "complete"]);
    expect(r.state.iterations[0].verify.exit_code).toBe(1);
    expect(r.state.iterations[1].verify.exit_code).toBe(0);
    expect(r.prompts[0]).toContain(check); // told up front
    expect(r.prompts[1]).toContain(check);
    expect(r.prompts[1]).toContain("greet.txt must say hello");
    expect(readFileSync(join(repo, "greet.txt"), "utf8")).toBe("hello\n");
  }, 300_000);

  test("--max-cost reached by the first story's cost as the CLI reports it: stopped (budget), exit 4, the second story untouched", async () => {
    const repo = makeRepo({ "tasks.md": TWO });
    const r = await loop(
      repo,
      [story(repo, "greet.txt", "hi\n", "1.1 Write greet.txt"), story(repo, "bye.txt", "bye\n", "2.1 Write bye.txt")],
      ["--max-cost", "0.000001"],
    );
    expect(r.code).toBe(4);
    expect(r.state).toMatchObject({ status: "stopped", stop_reason: "budget", stories_completed: 1 });
    expect(r.state.iterations).toHaveLength(1);
    expect(r.state.total_cost_usd).toBeGreaterThan(0.000001);
    expect(r.state.reason).toContain("Budget reached");
    expect(r.prompts).toHaveLength(1);
  }, 300_000);
});
