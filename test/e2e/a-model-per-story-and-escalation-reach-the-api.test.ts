// A model per story and --escalate, with the real Claude Code binary against the scripted local API:
// the model a heading names and each step of the escalation arrive as the request's `model`, and the
// receipt's per-model attempts and cost are what the API's result lines reported.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

const TASKS = "## 1. Migrate the schema (model: claude-haiku-4-5)\n- [ ] 1.1 Write schema.txt\n\n## 2. Farewell\n- [ ] 2.1 Write bye.txt\n";

const done = (repo: string, file: string, open: string): Turn[] => [
  { tool: "Read", input: { file_path: join(repo, "tasks.md") } }, // Claude Code edits only a file it has read
  { tool: "Write", input: { file_path: join(repo, file), content: `${file}\n` } },
  { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: `- [ ] ${open}`, new_string: `- [x] ${open}` } },
  { text: "Done. <promise>COMPLETE</promise>" },
];

describe("a model per story and --escalate", () => {
  test("the heading's model is story 1's; story 2 climbs sonnet -> opus after a FAILED attempt; the receipt counts each model", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    server = startModelServer([
      done(repo, "schema.txt", "1.1 Write schema.txt"),
      [{ text: "<promise>FAILED: the farewell wording is not in the spec</promise>" }],
      done(repo, "bye.txt", "2.1 Write bye.txt"),
    ]);
    const env = { ...claudeEnv(server.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}` };
    const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--escalate", "claude-sonnet-4-5,claude-opus-4-5"], {
      cwd: repo,
      env,
      timeoutMs: 300_000,
    });
    expect({ code: r.code, out: r.stdout.slice(-1500), err: r.stderr }).toMatchObject({ code: 0 });
    const state = readJson(join(repo, ".claude/loop-state.json"));
    expect(state.iterations.map((i: any) => [i.story_id, i.outcome, i.model])).toEqual([
      ["1", "complete", "claude-haiku-4-5"],
      ["2", "failed", "claude-sonnet-4-5"],
      ["2", "complete", "claude-opus-4-5"],
    ]);
    // What the API was asked: every request of each agent run (one conversation of the server) names that attempt's model.
    const api = server;
    const runs = api.log.filter((l) => !l.refused).map((l, k) => ({ conversation: l.conversation, model: api.requests[k].model }));
    const byRun = [0, 1, 2].map((c) => [...new Set(runs.filter((r) => r.conversation === c).map((r) => r.model))]);
    expect(byRun).toEqual([["claude-haiku-4-5"], ["claude-sonnet-4-5"], ["claude-opus-4-5"]]);
    // What the API reported: each main request's answer says 100 input and 20 output tokens (helpers/model-server.ts).
    // Each iteration's tokens are its run's requests' sum, and its cost is those tokens at the list price of the model it
    // asked for (per million: haiku 4.5 $1/$5, sonnet 4.5 $3/$15, opus 4.5 $5/$25) — the price of no other model.
    const PRICE: Record<string, [number, number]> = { "claude-haiku-4-5": [1, 5], "claude-sonnet-4-5": [3, 15], "claude-opus-4-5": [5, 25] };
    state.iterations.forEach((it: any, c: number) => {
      const requests = runs.filter((r) => r.conversation === c).length;
      expect(it.tokens).toEqual({ input: 100 * requests, output: 20 * requests, cache_read: 0, cache_creation: 0 });
      const [inPrice, outPrice] = PRICE[it.model]!;
      expect(it.cost_usd).toBeCloseTo((it.tokens.input * inPrice + it.tokens.output * outPrice) / 1e6, 12);
    });
    // The events carry it too.
    expect(
      readEvents(repo)
        .filter((e) => e.type === "IterationEnd")
        .map((e) => e.model),
    ).toEqual(["claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"]);
    // The receipt: per story, per model, attempts and the cost the result lines reported.
    const cost = (n: number) =>
      readFileSync(state.iterations[n].log_file, "utf8")
        .split("\n")
        .filter((l) => l.includes('"type":"result"'))
        .map((l) => JSON.parse(l).total_cost_usd)[0];
    const status = await wtLoop(["status", "--json"], { cwd: repo, env });
    const receipt = JSON.parse(status.stdout).receipt;
    expect(receipt.stories[0].models).toEqual([{ model: "claude-haiku-4-5", attempts: 1, cost_usd: cost(0) }]);
    expect(receipt.stories[1].models).toEqual([
      { model: "claude-sonnet-4-5", attempts: 1, cost_usd: cost(1) },
      { model: "claude-opus-4-5", attempts: 1, cost_usd: cost(2) },
    ]);
    expect(cost(1)).toBeGreaterThan(0);
    // The end box shows the models under each story.
    expect(r.stdout).toMatch(/claude-sonnet-4-5 ×1 \$[\d.]+ · claude-opus-4-5 ×1/);
  }, 300_000);
});
