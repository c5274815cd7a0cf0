// A run the agent's service refused part-way (a hard 429 after some turns) has already spent: the
// real Claude Code reports its cost and tokens in its result line. That spending is the user's
// money, so it counts in the iteration's record, the loop's totals and so its budget — a loop that
// ran into a limit ten times must not report (and budget) only the runs that were taken.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { apiError, claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { refuseTimes } from "../helpers/scripted-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

/** What every result line in the run's logs reports: the refused run's and the taken run's. */
function reported(repo: string) {
  const root = join(repo, ".claude/logs");
  const sum = { cost: 0, tokens: 0, results: 0 };
  for (const run of readdirSync(root))
    for (const f of readdirSync(join(root, run)).filter((f) => f.endsWith(".jsonl")))
      for (const line of readFileSync(join(root, run, f), "utf8").split("\n")) {
        if (!line.includes('"type":"result"')) continue;
        const r = JSON.parse(line);
        const u = r.usage;
        sum.cost += r.total_cost_usd;
        sum.tokens += u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        sum.results++;
      }
  return sum;
}

test("the cost and tokens of a run refused mid-story count in the iteration, the totals and the budget", async () => {
  const repo = makeRepo({ "tasks.md": "# Tasks\n\n## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
  const refusedRun: Turn[] = [
    { tool: "Write", input: { file_path: join(repo, "partial.txt"), content: "half\n" } },
    { tool: "Write", input: { file_path: join(repo, "partial2.txt"), content: "half\n" } },
  ];
  const takenRun: Turn[] = [
    { tool: "Write", input: { file_path: join(repo, "greet.txt"), content: "hi\n" } },
    { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: "- [ ] 1.1", new_string: "- [x] 1.1" } },
    { text: "Done. <promise>COMPLETE</promise>" },
  ];
  // The first run's third request is refused: two turns were made (and paid for) before it.
  server = startModelServer(
    [refusedRun, takenRun],
    refuseTimes(
      1,
      (at) => at.conversation === 0 && at.round === 2,
      () => apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "x-should-retry": "false" }),
    ),
  );
  const env = { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}`, WT_LOOP_WAIT_SCALE: "0.001" };
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--max-cost", "100"], { cwd: repo, env, timeoutMs: 120_000 });
  expect(r.code).toBe(0);
  const state = readJson(join(repo, ".claude/loop-state.json"));
  expect(state.iterations).toHaveLength(1);
  expect(state.iterations[0].unavailable).toMatchObject({ runs: 1 });

  const all = reported(repo);
  expect(all.results).toBe(2); // the refused run reported its spending too
  const it = state.iterations[0];
  expect(it.cost_usd).toBeCloseTo(all.cost, 9);
  expect(it.tokens_used).toBe(all.tokens);
  expect(state.total_cost_usd).toBeCloseTo(all.cost, 9);
  expect(state.total_tokens).toBe(all.tokens);
  const t = state.tokens;
  expect(t.input + t.output + t.cache_read + t.cache_creation).toBe(all.tokens);

  const status = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout);
  expect(status.total_cost_usd).toBeCloseTo(all.cost, 9);
}, 120_000);
