// Agent unavailable ≠ attempt failed (issue 12), with the real Claude Code binary against a scripted
// Messages API that refuses some requests as the real API does: a hard 429 (x-should-retry: false),
// a usage limit with its reset time, 401, and 529 overload that the CLI retries by itself.
// WT_LOOP_WAIT_SCALE shrinks the loop's backoff (30 s → 30 ms) so nothing here really waits long.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BIN, readEvents, readJson, spawnWtLoop, testPath, wtLoop } from "../helpers/cli.ts";
import { GREET_AND_BYE as TASKS, readState } from "../helpers/fixtures.ts";
import { apiError, claudeEnv, startModelServer, type ModelServer, type Turn } from "../helpers/model-server.ts";
import { refuseTimes, type Refuse } from "../helpers/scripted-server.ts";
import { git, makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor, waitGone } from "../helpers/wait.ts";

let server: ModelServer | undefined;
afterEach(() => server?.stop());

const SCALE = "0.001";

const story = (repo: string, file: string, task: string): Turn[] => [
  { tool: "Write", input: { file_path: join(repo, file), content: `${file}\n` } },
  { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: `- [ ] ${task}`, new_string: `- [x] ${task}` } },
  { text: "Done. <promise>COMPLETE</promise>" },
];
const hard429 =
  (message = "Number of request tokens has exceeded your per-minute rate limit") =>
  () =>
    apiError(429, "rate_limit_error", message, { "x-should-retry": "false" });
const always = () => true;

function env(extra: Record<string, string> = {}) {
  return { ...claudeEnv(server!.url, tempDir("claude-home-")), PATH: `${NODE_BIN}:${testPath()}`, WT_LOOP_WAIT_SCALE: SCALE, ...extra };
}

async function loop(repo: string, conversations: Turn[][], refuse: Refuse, args: string[] = [], extra: Record<string, string> = {}) {
  server = startModelServer(conversations, refuse);
  const t0 = Date.now();
  const r = await wtLoop(["start", "--terminal", "inline", "--on-complete", "keep", ...args], { cwd: repo, env: env(extra), timeoutMs: 120_000 });
  return { ...r, ms: Date.now() - t0, state: readJson(join(repo, ".claude/loop-state.json")), events: readEvents(repo), log: server.log };
}

describe("an unavailable Claude Code is waited for, not failed", () => {
  test("a hard 429 mid-story: its partial work is reverted, the same attempt is made again after the wait, the loop ends done", async () => {
    const repo = makeRepo({ "tasks.md": TASKS });
    const notes = join(tempDir(), "notices");
    // Run 2 writes partial.txt, then its next request is refused: the limit hit in the middle of story 2.
    const r = await loop(
      repo,
      [
        story(repo, "greet.txt", "1.1 Write greet.txt"),
        [{ tool: "Write", input: { file_path: join(repo, "partial.txt"), content: "half\n" } }],
        story(repo, "bye.txt", "2.1 Write bye.txt"),
      ],
      refuseTimes(1, (at) => at.conversation === 1 && at.round === 1, hard429()),
      ["--notify", `echo "$WT_LOOP_EVENT" >> ${notes}`],
    );
    expect(r.code).toBe(0);
    expect(r.state.status).toBe("done");
    expect(r.state.iterations.map((i: any) => [i.story_id, i.attempt, i.outcome])).toEqual([
      ["1", 1, "complete"],
      ["2", 1, "complete"],
    ]);
    expect(r.state.iterations[0].unavailable).toBeUndefined();
    expect(r.state.iterations[1].unavailable).toMatchObject({ runs: 1 });
    expect(r.state.iterations[1].unavailable.waited_ms).toBeGreaterThanOrEqual(30 * Number(SCALE) * 1000 - 5);
    expect(r.state.waiting).toBeNull();
    expect(existsSync(join(repo, "partial.txt"))).toBe(false); // the refused run's work was reverted
    // Story 1's checkpoint (a good state) was not reverted; story 2's attempt followed it.
    expect(git(repo, "log", "--format=%s", "main..HEAD").split("\n")).toEqual([
      "checkpoint: story 2 — Farewell",
      "checkpoint: story 1 — Greeting",
      "initial state",
    ]);
    expect(readFileSync(join(repo, "greet.txt"), "utf8")).toBe("greet.txt\n");
    // Not an attempt: the retried run is told nothing failed.
    expect(server!.prompts()[2]).toContain("## Your story: 2. Farewell");
    expect(server!.prompts()[2]).not.toContain("Previous attempt");
    // The refused run's own output is kept beside the iteration's log.
    const refusedLog = r.state.iterations[1].log_file.replace(/\.jsonl$/, ".unavailable-1.jsonl");
    expect(readFileSync(refusedLog, "utf8")).toContain('"api_error_status":429');
    const waiting = r.events.filter((e) => e.type === "Waiting");
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ story_id: "2", iteration: 2, attempt: 1, runs: 1 });
    expect(waiting[0].reason).toContain("Request rejected (429)");
    expect(r.stdout).toContain("⏸ The agent is unavailable: Claude Code: API Error: Request rejected (429)");
    expect(r.stdout).toContain("(not counted as an attempt)");
    expect(readFileSync(notes, "utf8").split("\n").filter(Boolean)).toEqual(["waiting", "final"]);
    const history = await wtLoop(["history"], { cwd: repo });
    expect(history.stdout).toMatch(/1× · \d+s waited/);
    expect(history.stdout).toContain("1 run refused by the agent's service");
  }, 120_000);

  test("a reset time in the refusal's text is honoured: the next run comes after it", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    // Seconds (the form's own resolution), taken when the refusal is made, not when the test starts:
    // on a loaded machine the loop's start alone can outlast a reset fixed up front, and a reset
    // already passed is rightly waited out by backoff instead. 20 s covers the CLI's exit and the parse.
    let reset = 0;
    const refusal = () => {
      reset = Math.floor(Date.now() / 1000) + 20;
      return hard429(`Claude AI usage limit reached|${reset}`)();
    };
    const r = await loop(repo, [story(repo, "greet.txt", "1.1 Write greet.txt")], refuseTimes(1, always, refusal));
    expect(r.state.status).toBe("done");
    const [wait] = r.events.filter((e) => e.type === "Waiting");
    expect(Date.parse(wait.until)).toBe(reset * 1000 + 15_000 * Number(SCALE)); // the reset plus the (scaled) margin
    const next = r.log.find((l) => !l.refused)!;
    expect(next.at).toBeGreaterThanOrEqual(reset * 1000);
    expect(r.state.iterations[0]).toMatchObject({ attempt: 1, outcome: "complete", unavailable: { runs: 1 } });
  }, 120_000);

  test("a reset time beyond --max-wait (resets 7pm (Asia/Shanghai)) ends the loop stuck at once, naming when", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    // The hour two hours from now in Shanghai (UTC+8 all year), in the form the CLI prints ("7pm"):
    // always 1–2 hours ahead, whatever the time of day the test runs (a fixed "7pm" read as "just
    // reset" when the test ran in the ten minutes after it).
    const hour = (new Date().getUTCHours() + 8 + 2) % 24;
    const said = `${hour % 12 || 12}${hour < 12 ? "am" : "pm"}`;
    const r = await loop(
      repo,
      [story(repo, "greet.txt", "1.1 Write greet.txt")],
      refuseTimes(Infinity, always, hard429(`You've hit your limit · resets ${said} (Asia/Shanghai)`)),
      ["--max-wait", "0.01"],
    );
    expect(r.code).toBe(2);
    expect(r.state.status).toBe("stuck");
    // The reason shows it on this machine's clock, plus the (scaled) margin.
    const now = new Date();
    let reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), (hour - 8 + 24) % 24, 0);
    if (reset <= Date.now()) reset += 86_400_000;
    const shown = new Date(reset + 15);
    const hm = `${String(shown.getHours()).padStart(2, "0")}:${String(shown.getMinutes()).padStart(2, "0")}`;
    expect(r.state.reason).toContain(`trying again at ${hm}`);
    expect(r.state.reason).toContain("would exceed --max-wait 0.01 h");
    expect(r.state.reason).not.toContain("..");
    expect(r.log).toHaveLength(1); // one run, no wait
    expect(r.state.iterations).toHaveLength(1);
    expect(r.state.iterations[0]).toMatchObject({ attempt: 1, outcome: "unavailable", unavailable: { runs: 1, waited_ms: 0 } });
  }, 120_000);

  test("unavailable on every call: the backoff grows until --max-wait is used up, then stuck with that reason", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    // 0.0002 h = 720 ms; scaled backoffs are 30, 60, 120, 240, 480 ms: four waits fit, the fifth does not.
    const r = await loop(repo, [story(repo, "greet.txt", "1.1 Write greet.txt")], refuseTimes(Infinity, always, hard429()), ["--max-wait", "0.0002"]);
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain("would exceed --max-wait 0.0002 h after");
    const waits = r.events.filter((e) => e.type === "Waiting");
    const gaps = waits.map((w) => Date.parse(w.until) - Date.parse(w.since));
    expect(gaps).toEqual([30, 60, 120, 240]);
    expect(r.state.iterations).toHaveLength(1);
    expect(r.state.iterations[0]).toMatchObject({ attempt: 1, outcome: "unavailable", unavailable: { runs: 5 } });
    expect(r.state.waiting).toBeNull();
  }, 120_000);

  test("401: stuck at once with the login command, the CLI's own retries cut short", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    const r = await loop(
      repo,
      [story(repo, "greet.txt", "1.1 Write greet.txt")],
      refuseTimes(Infinity, always, () => apiError(401, "authentication_error", "invalid x-api-key")),
    );
    expect(r.code).toBe(2);
    expect(r.state.status).toBe("stuck");
    expect(r.state.reason).toContain("Claude Code could not authenticate");
    expect(r.state.reason).toContain("`claude /login`");
    expect(r.events.filter((e) => e.type === "Waiting")).toEqual([]);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome])).toEqual([[1, "unavailable"]]);
    // Left alone the CLI retries a 401 ten times over ~3 minutes; the run ended on the first retry line.
    expect(r.log.length).toBeLessThanOrEqual(2);
  }, 120_000);

  test("529 twice: the CLI's own retries are shown and the loop is unaffected", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    const r = await loop(
      repo,
      [story(repo, "greet.txt", "1.1 Write greet.txt")],
      refuseTimes(2, always, () => apiError(529, "overloaded_error", "Overloaded")),
    );
    expect(r.code).toBe(0);
    expect(r.log.filter((l) => l.refused)).toHaveLength(2);
    expect(r.stdout).toMatch(/↻ API 529 overloaded: the agent retries \(1\/10\) in \d+s/);
    expect(r.stdout).toMatch(/↻ API 529 overloaded: the agent retries \(2\/10\)/);
    expect(r.state.iterations.map((i: any) => [i.attempt, i.outcome, i.unavailable])).toEqual([[1, "complete", undefined]]);
    expect(r.events.filter((e) => e.type === "Waiting")).toEqual([]);
  }, 120_000);
});

/** A loop in the background whose agent is refused until the test is over; returns once it waits. */
async function startWaiting(repo: string) {
  server = startModelServer([[{ text: "<promise>COMPLETE</promise>" }]], refuseTimes(Infinity, always, hard429()));
  // Unscaled: the first wait is the real 30 s, far longer than the test takes.
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: { ...env(), WT_LOOP_WAIT_SCALE: undefined } });
  const state = await waitFor("the loop to wait for the agent", () => readState(repo).waiting && readState(repo), 30_000, { whileRunning: proc }).catch((e) => {
    proc.kill("SIGKILL");
    throw e;
  });
  return { proc, state, output: new Response(proc.stdout).text() };
}

describe("a wait on an unavailable agent, on a bad day", () => {
  test("`wt-loop stop` ends the wait at once: stopped, not waiting", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    const run = await startWaiting(repo);
    expect(run.state.status).toBe("running"); // seed-format readers see a running loop
    expect(Date.parse(run.state.waiting.until) - Date.parse(run.state.waiting.since)).toBe(30_000);
    const status = await wtLoop(["status"], { cwd: repo });
    expect(status.stdout).toMatch(/Waiting: until \d\d:\d\d \(\d+s left\) for the agent: Claude Code: API Error: Request rejected \(429\)/);
    const t0 = Date.now();
    const stop = await wtLoop(["stop"], { cwd: repo });
    expect(stop.code).toBe(0);
    expect(await run.proc.exited).toBe(4);
    expect(Date.now() - t0).toBeLessThan(10_000); // not the 30 s the wait had left
    const s = readJson(join(repo, ".claude/loop-state.json"));
    expect(s).toMatchObject({ status: "stopped", waiting: null, runner_pid: null });
    expect(s.iterations.map((i: any) => [i.attempt, i.outcome, i.unavailable.runs])).toEqual([[1, "stopped", 1]]);
    expect(await run.output).toContain("⏸ The agent is unavailable");
  }, 60_000);

  test("kill -9 of the runner during a wait: the next status says stopped, not waiting", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    const run = await startWaiting(repo);
    process.kill(run.state.runner_pid, "SIGKILL");
    await run.proc.exited;
    await waitGone("the killed runner", run.state.runner_pid, 5000);
    const status = await wtLoop(["status", "--json"], { cwd: repo });
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ status: "stopped", waiting: null, runner_pid: null });
    expect(readJson(join(repo, ".claude/loop-state.json")).waiting).toBeNull();
  }, 60_000);
});
