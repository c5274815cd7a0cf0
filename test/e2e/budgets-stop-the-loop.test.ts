// Budgets (issue 12): `--max-cost USD` and `--max-tokens N` cover the whole loop. Reached mid-loop,
// the loop ends `stopped` (exit 4) with the reason `budget` everywhere a reason is shown; a plain
// restart is refused (the budget is spent), a restart with a higher budget continues, and an agent
// that reports no cost cannot take --max-cost.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { formatCost, formatTokens } from "../../src/text/format.ts";

const FOUR = "# Tasks\n\n## 1. A\n- [ ] 1.1 a\n\n## 2. B\n- [ ] 2.1 b\n\n## 3. C\n- [ ] 3.1 c\n\n## 4. D\n- [ ] 4.1 d\n";
/** What the fake claude reports per run (test/fixtures/bin/claude): input + output + cache read + cache creation. */
const TOKENS_PER_RUN = 100 + 40 + 30 + 20;

describe("budgets", () => {
  test("--max-cost reached mid-loop: stopped (budget), exit 4, shown by status, list and statusline; a plain restart is refused, a higher budget continues", async () => {
    const repo = makeRepo({ "tasks.md": FOUR });
    const cost = 0.5;
    const limit = 1.2; // reached by the third run: 1.50 ≥ 1.20
    const r = await runLoop(repo, [COMPLETE({ cost })], ["--max-cost", String(limit), "--on-complete", "keep"]);
    expect(r.code).toBe(4);
    expect(r.state.status).toBe("stopped");
    expect(r.state.stop_reason).toBe("budget");
    expect(r.state.iterations.map((i) => i.outcome)).toEqual(["complete", "complete", "complete"]);
    expect(r.state.stories_completed).toBe(3);
    expect(r.state.max_cost_usd).toBe(limit);
    const spent = `${formatCost(3 * cost)} of ${formatCost(limit)}`;
    expect(r.state.reason).toContain(`Budget reached: ${spent}`);
    expect(r.state.completion).toBe("keep"); // the completion step ran
    expect(r.stdout).toContain("Loop stopped (budget)");
    expect(r.stdout).toContain("--max-cost");
    const complete = r.events.find((e) => e.type === "Complete");
    expect(complete).toMatchObject({ status: "stopped", stop_reason: "budget" });

    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toContain("stopped (budget)");
    expect(status.stdout).toMatch(new RegExp(`Budget:\\s+${spent.replace(/\$/g, "\\$")}`));
    const list = await wtLoop(["list", "--json"], { cwd: repo });
    expect(JSON.parse(list.stdout)[0].loop).toMatchObject({ status: "stopped", stop_reason: "budget", budget: { cost_usd: 3 * cost, max_cost_usd: limit } });
    expect((await wtLoop(["list"], { cwd: repo })).stdout).toContain("stopped (budget)");
    const line = await wtLoop(["statusline"], { cwd: repo });
    expect(line.stdout.trim()).toBe("wt-loop stopped (budget)");

    // The same budget is spent: refused before anything is written.
    const agent = fakeAgent([COMPLETE({ cost })], tempDir("fake-agent-"));
    const same = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env: agent.env });
    expect(same.code).toBe(1);
    expect(same.stderr).toContain(`has spent ${formatCost(3 * cost)} of its --max-cost ${formatCost(limit)}`);
    expect(readState(repo).started_at).toBe(r.state.started_at);

    // A higher budget continues the loop: the last story, the spending carried on.
    const more = await wtLoop(["start", "--terminal", "inline", "--max-cost", "5"], { cwd: repo, env: agent.env });
    expect(more.stdout).toContain("Given here instead: --max-cost");
    expect(more.code).toBe(0);
    const after = readState(repo);
    expect(after.status).toBe("done");
    expect(after.iterations.length).toBe(1);
    expect(after.spent_before.cost_usd).toBeCloseTo(3 * cost, 9);
    expect(after.stop_reason).toBeNull();
  }, 90_000);

  test("a remembered budget or --verify is taken away with `none`: the restart runs without them", async () => {
    const repo = makeRepo({ "tasks.md": FOUR });
    const first = await runLoop(repo, [COMPLETE({ cost: 0.5 })], ["--max-cost", "0.6", "--verify", "true", "--on-complete", "keep"]);
    expect(first.code).toBe(4);
    expect(first.state).toMatchObject({ max_cost_usd: 0.6, verify: "true" });
    const agent = fakeAgent([COMPLETE({ cost: 0.5 })], tempDir("fake-agent-"));
    const r = await wtLoop(["start", "--terminal", "inline", "--max-cost", "none", "--verify", "none"], { cwd: repo, env: agent.env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const after = readState(repo);
    expect(after).toMatchObject({ status: "done", max_cost_usd: null, verify: null, stories_completed: 4 });
    expect(after.iterations.every((i: { verify?: unknown }) => i.verify === undefined)).toBe(true);
  }, 90_000);

  test("--max-tokens reached mid-loop stops the loop after that iteration", async () => {
    const repo = makeRepo({ "tasks.md": FOUR });
    const limit = TOKENS_PER_RUN + 1; // reached by the second run
    const r = await runLoop(repo, [COMPLETE()], ["--max-tokens", String(limit), "--on-complete", "keep"]);
    expect(r.code).toBe(4);
    expect(r.state).toMatchObject({ status: "stopped", stop_reason: "budget", max_tokens: limit });
    expect(r.state.iterations.length).toBe(2);
    expect(r.state.total_tokens).toBe(2 * TOKENS_PER_RUN);
    expect(r.state.reason).toContain(`Budget reached: ${formatTokens(2 * TOKENS_PER_RUN)} of ${formatTokens(limit)} tokens`);
  }, 60_000);

  test("a budget the agent cannot measure is refused at start, with nothing written", async () => {
    const repo = makeRepo({ "tasks.md": FOUR });
    // codex installed (the dev dependency's CLI): start's pre-flight refuses a missing agent before it looks at budgets.
    const withCodex = { PATH: `${join(import.meta.dir, "../../node_modules/.bin")}:${process.env.PATH}` };
    const codex = await wtLoop(["start", "--terminal", "inline", "--agent", "codex", "--max-cost", "3"], { cwd: repo, env: withCodex });
    expect(codex.code).toBe(1);
    expect(codex.stderr).toContain("--max-cost needs an agent that reports its cost; codex reports none");
    const command = await wtLoop(["start", "--terminal", "inline", "--agent", "command", "--agent-cmd", "true", "--max-tokens", "9"], { cwd: repo });
    expect(command.code).toBe(1);
    expect(command.stderr).toContain("--max-tokens needs an agent that reports its tokens; command reports none");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  }, 60_000);
});
