// `--review claude` (issue 21) with the real Claude Code binary (pinned dev dependency) as both the
// agent and the reviewer, against a scripted local model: an APPROVE run, and a CHANGES run whose
// reason reaches the retry's prompt. The reviewer's cost, as the real CLI reports it, is counted.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { apiError, claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { refuseTimes, type Refuse } from "../helpers/scripted-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

const TASKS = "## 1. Greeting\n- [ ] 1.1 Write greet.txt saying hello\n";

function story(repo: string, content: string): Turn[] {
  const open = "1.1 Write greet.txt saying hello";
  return [
    { tool: "Write", input: { file_path: join(repo, "greet.txt"), content } },
    { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: `- [ ] ${open}`, new_string: `- [x] ${open}` } },
    { text: "Done. <promise>COMPLETE</promise>" },
  ];
}
const review = (text: string): Turn[] => [{ tool: "Bash", input: { command: "git status --short", description: "look" } }, { text }];

async function loop(repo: string, conversations: Turn[][], args: string[] = [], refuse?: Refuse) {
  server = startModelServer(conversations, refuse);
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--review", "claude", ...args], {
    cwd: repo,
    env: { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}`, WT_LOOP_WAIT_SCALE: "0.001" },
    timeoutMs: 300_000,
  });
  return { ...r, state: readJson(join(repo, ".claude/loop-state.json")), prompts: server.prompts() };
}

describe("the real Claude Code binary as the --review reviewer", () => {
  test("APPROVE: the story is accepted; the reviewer saw the story and the diff; its cost counts", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await loop(repo, [story(repo, "hello\n"), review("The file says hello. <review>APPROVE</review>")]);
    expect(r.stderr).not.toContain("    at ");
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    const [it] = r.state.iterations;
    expect(it.outcome).toBe("complete");
    expect(it.review).toMatchObject({ reviewer: "claude", verdict: "approve", runs: 1, put_back: [] });
    expect(r.prompts).toHaveLength(2);
    expect(r.prompts[1]).toContain("1. Greeting");
    expect(r.prompts[1]).toContain("+hello");
    expect(r.prompts[1]).toContain("<review>APPROVE</review>");
    expect(it.review.cost_usd).toBeGreaterThan(0);
    expect(it.cost_usd).toBeGreaterThan(it.review.cost_usd); // the agent's and the reviewer's
    expect(r.state.total_cost_usd).toBeCloseTo(it.cost_usd, 9);
    expect(readFileSync(it.review.log_file, "utf8")).toContain("APPROVE");
    // `wt-loop log` shows the review; `history` its verdict.
    const log = await wtLoop(["log"], { cwd: repo });
    expect(log.stdout).toContain("review by claude");
    expect(log.stdout).toContain("review approved");
    const history = await wtLoop(["history"], { cwd: repo });
    expect(history.stdout).toContain("approved");
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toMatch(/Review: +claude \(limit 15 min\)/);
  }, 300_000);

  test("CHANGES: the attempt is reverted and retried with the reviewer's reason; the second is approved", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await loop(repo, [
      story(repo, "hi\n"),
      review("greet.txt says hi. <review>CHANGES: greet.txt must say hello, not hi</review>"),
      story(repo, "hello\n"),
      review("<review>APPROVE</review>"),
    ]);
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome, i.review?.verdict])).toEqual([
      [1, "rejected", "changes"],
      [2, "complete", "approve"],
    ]);
    expect(r.prompts).toHaveLength(4);
    expect(r.prompts[1]).toContain("+hi");
    expect(r.prompts[2]).toContain("greet.txt must say hello, not hi");
    expect(readFileSync(join(repo, "greet.txt"), "utf8")).toBe("hello\n");
  }, 300_000);

  test("a reviewer refused by a usage limit part-way is waited for like the agent: what it began is put back, the review is made again", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const notes = join(repo, "reviewer-notes.txt");
    const r = await loop(
      repo,
      [story(repo, "hello\n"), [{ tool: "Write", input: { file_path: notes, content: "half a review\n" } }], review("<review>APPROVE</review>")],
      [],
      refuseTimes(
        1,
        (at) => at.conversation === 1 && at.round === 1,
        () => apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "x-should-retry": "false" }),
      ),
    );
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome, i.review?.verdict])).toEqual([[1, "complete", "approve"]]);
    expect(readEvents(repo).some((e: any) => e.type === "Waiting")).toBe(true);
    expect(existsSync(notes)).toBe(false);
    expect(readFileSync(join(repo, "greet.txt"), "utf8")).toBe("hello\n");
  }, 300_000);
});
