// `(agent: codex)` in a story's heading: that story's attempts run the Codex CLI (the real one, against the
// scripted local Responses API) while the other stories run the loop's agent (the scripted `claude` of
// test/fixtures/bin); --escalate climbs the loop agent's models only. A name wt-loop does not know, and an
// agent whose CLI is not installed, are refused at start naming the heading, with nothing written.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { codexEnv, startResponsesServer, type ResponsesServer } from "../helpers/responses-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ResponsesServer | undefined;
afterEach(() => server?.stop());

const TASKS =
  "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n\n" +
  "## 2. Port the farewell (agent: codex) (model: gpt-5-codex)\n- [ ] 2.1 Write bye.txt\n\n" +
  "## 3. Thanks\n- [ ] 3.1 Write thanks.txt\n";

describe("a story that names its agent", () => {
  test("story 2 runs codex with its heading's model; stories 1 and 3 run the loop's claude, climbing --escalate; each iteration says which agent ran it", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    // The loop's claude: story 1 fails once (it climbs), then completes; story 3 completes.
    const claude = fakeAgent(
      [
        { promise: "FAILED: not yet" },
        { write: { "greet.txt": "hi\n" }, tick: "story", promise: "COMPLETE" },
        { write: { "thanks.txt": "thanks\n" }, tick: "story", promise: "COMPLETE" },
      ],
      tempDir("claude-agent-"),
    );
    server = startResponsesServer([
      [{ cmd: "echo bye > bye.txt && sed -i 's/- \\[ \\] 2.1/- [x] 2.1/' tasks.md" }, { text: "Done.\n<promise>COMPLETE</promise>" }],
    ]);
    // The scripted claude first on PATH, the real codex (node_modules/.bin) after it.
    const env = { ...codexEnv(server.url, tempDir("codex-home-")), ...claude.env, PATH: `${testPath()}:${NODE_BIN}` };
    const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", "--escalate", "sonnet,opus"], { cwd: repo, env, timeoutMs: 300_000 });
    expect({ code: r.code, err: r.stderr, out: r.stdout.slice(-2000) }).toMatchObject({ code: 0 });

    const state = readJson(join(repo, ".claude/loop-state.json"));
    expect(state.iterations.map((i: any) => [i.story_id, i.outcome, i.agent ?? null, i.model ?? null])).toEqual([
      ["1", "failed", null, "sonnet"],
      ["1", "complete", null, "opus"],
      ["2", "complete", "codex", "gpt-5-codex"],
      ["3", "complete", null, "sonnet"],
    ]);
    // The scripted claude ran three times (stories 1 and 3), with the escalation's models; codex ran story 2.
    expect(readFileSync(join(claude.dir, "count"), "utf8")).toBe("3");
    const claudeModels = [1, 2, 3].map((n) => {
      const argv: string[] = readJson(join(claude.dir, `argv-${n}.json`)).argv;
      return argv[argv.indexOf("--model") + 1];
    });
    expect(claudeModels).toEqual(["sonnet", "opus", "sonnet"]);
    expect(
      readdirSync(claude.dir)
        .filter((f) => f.startsWith("prompt-"))
        .map((f) => readFileSync(join(claude.dir, f), "utf8").includes("Port the farewell")),
    ).not.toContain(true);
    expect([...new Set(server.requests.map((b: any) => b.model))]).toEqual(["gpt-5-codex"]);
    expect(server.prompts()[0]).toContain("## Your story: 2. Port the farewell");
    expect(readFileSync(join(repo, "bye.txt"), "utf8")).toBe("bye\n");
    // Codex's own stream is in story 2's log, read by the codex parser (its tokens counted).
    expect(readFileSync(state.iterations[2].log_file, "utf8")).toContain('"turn.completed"');
    expect(state.iterations[2].tokens_used).toBeGreaterThan(0);
    expect(state.iterations[2].cost_usd).toBeNull();

    // The events carry the agent as the state does.
    expect(
      readEvents(repo)
        .filter((e) => e.type === "IterationEnd")
        .map((e) => e.agent ?? null),
    ).toEqual([null, null, "codex", null]);
    // status --json: the receipt names codex and its model under story 2, with no cost (codex reports none).
    const status = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo, env })).stdout);
    expect(status.iterations[2].agent).toBe("codex");
    expect(status.receipt.stories[1].models).toEqual([{ model: "gpt-5-codex", agent: "codex", attempts: 1, cost_usd: null }]);
    expect(status.receipt.stories[0].models.map((m: any) => [m.model, m.agent ?? null, m.attempts])).toEqual([
      ["sonnet", null, 1],
      ["opus", null, 1],
    ]);
    expect(r.stdout).toContain("codex gpt-5-codex ×1");
  }, 300_000);

  test("an agent wt-loop does not know is refused at start, naming the heading; nothing is written", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Setup\n- [ ] 1.1 a\n\n## 2. Port (agent: cursor)\n- [ ] 2.1 b\n" });
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tasks.md: `## 2. Port (agent: cursor)` names the agent 'cursor', which wt-loop does not know");
    expect(r.stderr).toContain("Nothing was started");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });

  test("an agent whose CLI is not installed is refused at start, naming the heading and how to install it", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Setup\n- [ ] 1.1 a\n\n## 2. Port (agent: gemini)\n- [ ] 2.1 b\n" });
    // testPath() has the scripted claude and no gemini (node_modules/.bin is left out).
    const r = await wtLoop(["start", "--terminal", "inline"], { cwd: repo, env: { PATH: testPath() } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "`## 2. Port (agent: gemini)` runs its attempts with gemini, whose CLI 'gemini' is not installed (not found on PATH). Install it (npm install -g @google/gemini-cli)",
    );
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });

  test("--max-cost with a story of an agent that reports no cost is refused: the budget could not see its spending", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Setup\n- [ ] 1.1 a\n\n## 2. Port (agent: codex)\n- [ ] 2.1 b\n" });
    const r = await wtLoop(["start", "--terminal", "inline", "--max-cost", "5"], { cwd: repo, env: { PATH: `${testPath()}:${NODE_BIN}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("`## 2. Port (agent: codex)` runs its attempts with codex. --max-cost needs an agent that reports its cost");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });
});
