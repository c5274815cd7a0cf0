// Agent unavailable ≠ attempt failed, for the real Codex and Gemini CLIs against their scripted
// servers: a refusal the service will lift is waited for (WT_LOOP_WAIT_SCALE keeps the backoff to
// milliseconds) and the same attempt made again; refused credentials end the loop stuck at once.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, testPath, wtLoop } from "../helpers/cli.ts";
import { geminiEnv, startGeminiServer, type GeminiTurn } from "../helpers/gemini-server.ts";
import { codexEnv, startResponsesServer, type CodexTurn } from "../helpers/responses-server.ts";
import { refuseTimes, type Refuse, type ScriptedServer } from "../helpers/scripted-server.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

let server: ScriptedServer | undefined;
afterEach(() => server?.stop());

const TASKS = "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n";
const always = () => true;
const json = (status: number, body: object) => () => Response.json(body, { status });

async function run(repo: string, args: string[], env: Record<string, string>) {
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", ...args], {
    cwd: repo,
    env: { ...env, PATH: `${NODE_BIN}:${testPath()}`, WT_LOOP_WAIT_SCALE: "0.001" },
    timeoutMs: 120_000,
  });
  return { ...r, state: readJson(join(repo, ".claude/loop-state.json")), events: readEvents(repo), log: server!.log };
}

const codexStory: CodexTurn[] = [
  { cmd: "echo greet.txt > greet.txt && sed -i 's/- \\[ \\] 1.1/- [x] 1.1/' tasks.md" },
  { text: "Done.\n<promise>COMPLETE</promise>" },
];
async function codex(repo: string, refuse: Refuse, args: string[] = []) {
  server = startResponsesServer([codexStory], refuse);
  return run(repo, ["--agent", "codex", ...args], codexEnv(server.url, tempDir("codex-home-")));
}

const geminiStory: GeminiTurn[] = [
  { command: "echo greet.txt > greet.txt && sed -i 's/- \\[ \\] 1.1/- [x] 1.1/' tasks.md" },
  { text: "Done.\n<promise>COMPLETE</promise>" },
];
async function gemini(repo: string, refuse: Refuse, extra: Record<string, string> = {}) {
  server = startGeminiServer([geminiStory], refuse);
  return run(repo, ["--agent", "gemini", "--model", "gemini-2.5-pro"], { ...geminiEnv(server.url, tempDir("gemini-home-")), ...extra });
}

describe("the real Codex CLI, refused", () => {
  test("429 (after its own retries): waited for, the same attempt made again, done", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await codex(
      repo,
      refuseTimes(1, always, json(429, { error: { type: "rate_limit_exceeded", message: "Rate limit reached for requests", code: "rate_limit_exceeded" } })),
    );
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome, i.unavailable?.runs])).toEqual([[1, "complete", 1]]);
    expect(existsSync(join(repo, "greet.txt"))).toBe(true);
    const [wait] = r.events.filter((e) => e.type === "Waiting");
    expect(wait.reason).toContain("Codex: exceeded retry limit, last status: 429");
  }, 120_000);

  test("a plan's usage limit resetting in two days is beyond --max-wait: stuck at once, with Codex's own words", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const resets = Math.floor(Date.now() / 1000) + 2 * 86_400;
    const r = await codex(
      repo,
      refuseTimes(
        Infinity,
        always,
        json(429, {
          error: {
            type: "usage_limit_reached",
            message: "The usage limit has been reached",
            plan_type: "plus",
            resets_at: resets,
            resets_in_seconds: 2 * 86_400,
          },
        }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.state.reason).toContain("You’ve hit your usage limit");
    expect(r.state.reason).toContain("would exceed --max-wait 8 h");
    expect(r.log).toHaveLength(1);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome])).toEqual([[1, "unavailable"]]);
  }, 120_000);

  test("401: stuck at once with `codex login`, its five reconnects cut short", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await codex(
      repo,
      refuseTimes(Infinity, always, json(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } })),
    );
    expect(r.code).toBe(2);
    expect(r.state.reason).toContain("Codex could not authenticate");
    expect(r.state.reason).toContain("`codex login`");
    expect(r.log.length).toBeLessThan(6); // left alone, Codex asks six times over ~7 s
    expect(r.events.filter((e) => e.type === "Waiting")).toEqual([]);
  }, 120_000);
});

describe("the real Gemini CLI, refused", () => {
  test("a daily quota: waited for, the same attempt made again, done", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const quota = json(429, {
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message: "You exceeded your current quota, please check your plan and billing details.",
        details: [{ "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }] }],
      },
    });
    const r = await gemini(repo, refuseTimes(1, always, quota));
    expect(r.code).toBe(0);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome, i.unavailable?.runs])).toEqual([[1, "complete", 1]]);
    const [wait] = r.events.filter((e) => e.type === "Waiting");
    expect(wait.reason).toContain("You have exhausted your daily quota");
  }, 120_000);

  test("401: stuck at once, naming GEMINI_API_KEY", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await gemini(
      repo,
      refuseTimes(
        Infinity,
        always,
        json(401, { error: { code: 401, message: "API key not valid. Please pass a valid API key.", status: "UNAUTHENTICATED", details: [] } }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.state.reason).toContain("Gemini CLI could not authenticate");
    expect(r.state.reason).toContain("GEMINI_API_KEY");
    expect(r.log).toHaveLength(1);
  }, 120_000);

  test("no key at all (exit 41): stuck at once", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const r = await gemini(repo, () => undefined, { GEMINI_API_KEY: "" });
    expect(r.code).toBe(2);
    expect(r.state.reason).toContain("exited with code 41");
    expect(r.log).toHaveLength(0);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome])).toEqual([[1, "unavailable"]]);
  }, 120_000);
});
