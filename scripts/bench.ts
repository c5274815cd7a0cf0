/**
 * `bun run bench`: what wt-loop itself costs, each figure the median of several runs and compared in
 * the same run with the floor that Bun or git sets. Prints a table and writes bench-results/latest.json.
 *
 *   BENCH_RUNS=3       runs per figure (loops, memory)      BENCH_STATUS_RUNS=30  runs per latency figure
 *   BENCH_SIZES=1000,10000,50000  repository sizes for the per-iteration overhead
 *   BENCH_ONLY=latency|loops|memory|monitor  one section only
 */
import { $ } from "bun";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, join, resolve } from "node:path";
import { processStartTime } from "../src/proc/pid.ts";
import { SCHEMA_VERSION } from "../src/state/schema.ts";

const ROOT = resolve(import.meta.dir, "..");
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const STATUS_RUNS = Number(process.env.BENCH_STATUS_RUNS ?? 30);
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,50000").split(",").map(Number);
const work = mkdtempSync(join(tmpdir(), "wt-loop-bench-"));
const BIN = join(work, "wt-loop");
const EMPTY = join(work, "empty");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };

function time(argv: string[], cwd: string, env: Record<string, string | undefined> = process.env): number {
  const t0 = performance.now();
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "ignore", stderr: "pipe" });
  const dt = performance.now() - t0;
  if (r.exitCode !== 0 && !argv.includes("--allow-fail")) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  return dt;
}

function git(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString().trim();
}

/** A committed repository with `files` small files, 100 per folder, and `tasks.md` of `stories` one-task stories. */
function makeRepo(name: string, files: number, stories: number): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  for (let i = 0; i < files; i++) {
    const sub = join(dir, "src", `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  writeFileSync(join(dir, "tasks.md"), Array.from({ length: stories }, (_, i) => `## ${i + 1}. Story ${i + 1}\n- [ ] ${i + 1}.1 do it\n`).join("\n"));
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "base");
  return dir;
}

// ── 1. command latency ───────────────────────────────────────────────────────────────────────────
/** A finished loop's state with `iterations` iterations, as `status` reads it. */
function writeStatusState(repo: string, iterations: number) {
  const iter = (n: number) => ({
    n, started: "2026-11-21T10:00:00.000Z", ended: "2026-11-21T10:01:00.000Z", done_check: false, commits: ["a".repeat(40)],
    tokens_used: 12345, story_id: String(n % 25), story_title: "A story title", attempt: 1 + (n % 3), outcome: n % 2 ? "failed" : "complete",
    reason: n % 2 ? "the tests fail in a way that takes a sentence to describe" : null, progress: true,
    tokens: { input: 10000, output: 2000, cache_read: 300, cache_creation: 45 }, cost_usd: 0.12, turns: 7, exit_code: 0,
    log_file: `${repo}/.claude/logs/iter-${String(n).padStart(3, "0")}.jsonl`,
  });
  const state = {
    schema_version: SCHEMA_VERSION, worktree_name: basename(repo), worktree_path: repo, status: "done", current_iteration: iterations, max_iterations: Math.max(iterations, 1),
    started_at: "2026-11-21T10:00:00.000Z", updated_at: "2026-11-21T18:00:00.000Z", ended_at: "2026-11-21T18:00:00.000Z", task: "bench",
    iterations: Array.from({ length: iterations }, (_, i) => iter(i + 1)), done_criteria: "tasks", stall_threshold: 2, iteration_timeout_min: 45,
    total_tokens: iterations * 12345, tokens: { input: 1, output: 1, cache_read: 1, cache_creation: 1 }, total_cost_usd: 60, max_retries: 3,
    command_timeout_sec: 30, agent: "claude", agent_cmd: null, model: null, checkpoint: "branch", on_complete: "keep", terminal: "inline",
    source: "tasks-file", change: null, tasks_file: `${repo}/tasks.md`, stories_total: 25, stories_completed: 25, current_story: null,
    runner_pid: null, runner_started: null, agent_pid: null, checkpoint_branch: "ralph/x", original_branch: "main", original_commit: "b".repeat(40),
    checkpoint_sha: "c".repeat(40), completion: "keep", reason: "done", error: null,
  };
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state, null, 2));
}

/** Start-up: each command against an empty compiled Bun program, measured interleaved in this run. */
function statusLatency() {
  const small = makeRepo("status-30", 10, 1);
  writeStatusState(small, 30);
  const repo = makeRepo("status-repo", 10, 1);
  writeStatusState(repo, 500);
  const argvs: Record<string, [string[], string]> = {
    empty: [[EMPTY], repo],
    version: [[BIN, "--version"], repo],
    help: [[BIN, "--help"], repo],
    status_30: [[BIN, "status"], small],
    status_500: [[BIN, "status"], repo],
    status_json_500: [[BIN, "status", "--json"], repo],
    rev: [["git", "rev-parse", "--show-toplevel"], repo],
  };
  // Round-robin, so that machine noise hits every command alike; the median of each.
  const xs: Record<string, number[]> = Object.fromEntries(Object.keys(argvs).map((k) => [k, []]));
  for (const [argv, cwd] of Object.values(argvs)) time(argv, cwd); // warm the page cache
  for (let i = 0; i < STATUS_RUNS; i++) for (const [k, [argv, cwd]] of Object.entries(argvs)) xs[k]!.push(time(argv, cwd));
  const med = (k: string) => median(xs[k]!);
  const m = { empty: med("empty"), version: med("version"), help: med("help"), status_30: med("status_30"), status_500: med("status_500"),
    status_json_500: med("status_json_500"), rev: med("rev") };
  return {
    empty_bun_ms: m.empty, version_ms: m.version, help_ms: m.help, status_30_ms: m.status_30, status_ms: m.status_500, status_json_ms: m.status_json_500,
    git_rev_parse_ms: m.rev,
    version_ratio: m.version / m.empty, help_ratio: m.help / m.empty, status_30_ratio: m.status_30 / m.empty,
    status_ratio: m.status_500 / m.empty, status_json_ratio: m.status_json_500 / m.empty,
  };
}

// ── 2. per-iteration overhead ────────────────────────────────────────────────────────────────────
const STORIES = 25; // alternating FAILED and COMPLETE: 50 iterations

function agentScript(counter: string): string {
  const path = join(work, `agent-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh
n=$(cat "${counter}" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${counter}"
if [ $((n % 2)) -eq 1 ]; then echo "<promise>FAILED: bench says no</promise>"; exit 0; fi
sed -i '0,/- \\[ \\]/s//- [x]/' tasks.md
echo "<promise>COMPLETE</promise>"
`,
  );
  return path;
}

/** The same checkpoint work done with plain git commands from a shell: the floor wt-loop is held to. */
function baselineScript(strategy: "branch" | "stash", agent: string): string {
  const path = join(work, `baseline-${strategy}-${Math.random().toString(36).slice(2)}.sh`);
  const perIter =
    strategy === "branch"
      ? `  sh ${agent} </dev/null > out.txt
  git status --porcelain > /dev/null
  if grep -q COMPLETE out.txt; then git add -A && git commit -q -m "checkpoint"; else git reset -q --hard && git clean -fdq; fi`
      : `  if [ -z "$stashed" ] && [ -n "$(git status --porcelain)" ]; then git stash push -q -u -m "ralph:x:s" && git stash apply -q --index; stashed=1; fi
  sh ${agent} </dev/null > out.txt
  git status --porcelain > /dev/null
  if grep -q COMPLETE out.txt; then [ -n "$stashed" ] && git stash drop -q; stashed=
  else git reset -q --hard && git clean -fdq; [ -n "$stashed" ] && git stash apply -q --index; fi`;
  writeFileSync(
    path,
    `#!/bin/sh
set -e
stashed=
${strategy === "branch" ? 'git checkout -q -b ralph/x && git add -A && git commit -q --allow-empty -m "initial state"' : ""}
i=0
while [ $i -lt ${STORIES * 2} ]; do
${perIter}
  i=$((i+1))
done
rm -f out.txt
`,
  );
  return path;
}

function loopOverhead(strategy: "branch" | "stash", files: number) {
  const ours: number[] = [];
  const raw: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // wt-loop
    const a = makeRepo(`loop-${strategy}-${files}-${run}-a`, files, STORIES);
    const counterA = join(work, `count-a-${strategy}-${files}-${run}`);
    const args = [BIN, "start", "--terminal", "inline", "--agent", "command", "--agent-cmd", `sh ${agentScript(counterA)}`, "--checkpoint", strategy,
      "--on-complete", "keep", "--max", String(STORIES * 2)];
    const t = time(args, a, { ...gitEnv, OPENSPEC_TELEMETRY: "0" });
    const state = JSON.parse(readFileSync(join(a, ".claude/loop-state.json"), "utf8"));
    if (state.status !== "done" || state.iterations.length !== STORIES * 2) throw new Error(`bench loop ended ${state.status} after ${state.iterations.length}`);
    ours.push(t / (STORIES * 2));
    // the same work in raw git
    const b = makeRepo(`loop-${strategy}-${files}-${run}-b`, files, STORIES);
    const counterB = join(work, `count-b-${strategy}-${files}-${run}`);
    raw.push(time(["sh", baselineScript(strategy, agentScript(counterB))], b, gitEnv) / (STORIES * 2));
    rmSync(a, { recursive: true, force: true });
    rmSync(b, { recursive: true, force: true });
  }
  return { strategy, files, wt_loop_ms_per_iteration: median(ours), raw_git_ms_per_iteration: median(raw), ratio: median(ours) / median(raw) };
}

// ── 3. streaming memory ──────────────────────────────────────────────────────────────────────────
async function peakRss(mb: number, big = Math.round(mb / 20)): Promise<number> {
  const repo = makeRepo(`stream-${mb}-${Math.random().toString(36).slice(2)}`, 10, 1);
  const binDir = join(work, "stream-bin");
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(binDir, "claude"), `#!/bin/sh\nexec bun ${join(ROOT, "scripts/bench/stream-agent.ts")}\n`, { mode: 0o755 });
  const proc = Bun.spawn([BIN, "start", "--terminal", "inline", "--done", "manual", "--on-complete", "keep", "stream"], {
    cwd: repo, env: { ...gitEnv, PATH: `${binDir}:${process.env.PATH}`, BENCH_STREAM_MB: String(mb), BENCH_BIG_MESSAGES: String(big) },
    stdout: "ignore", stderr: "ignore",
  });
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // exited
    }
  }, 20);
  await proc.exited;
  clearInterval(poll);
  const state = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
  if (state.status !== "done") throw new Error(`stream bench ended ${state.status}`);
  rmSync(repo, { recursive: true, force: true });
  return peak;
}

// ── 4. monitor latency ───────────────────────────────────────────────────────────────────────────
async function monitorLatency(samples = 60) {
  const repo = makeRepo("monitor-repo", 10, 1);
  const started = new Date(Date.now() - 1000).toISOString();
  const statePath = join(repo, ".claude/loop-state.json");
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeStatusState(repo, 0);
  const status = JSON.parse(readFileSync(statePath, "utf8"));
  writeFileSync(statePath, JSON.stringify({ ...status, worktree_path: repo, status: "running", started_at: started, iterations: [],
    runner_pid: process.pid, runner_started: processStartTime(process.pid), ended_at: null }));
  const events = join(repo, ".claude/loop-events.jsonl");
  writeFileSync(events, "");
  const mon = Bun.spawn([BIN, "monitor"], { cwd: repo, env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "ignore" });
  const seen = new Map<string, number>();
  const reader = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of mon.stdout) {
      const now = performance.now();
      buf += dec.decode(chunk);
      for (const m of buf.matchAll(/mark-(\d+)/g)) if (!seen.has(m[1]!)) seen.set(m[1]!, now);
      buf = buf.slice(Math.max(0, buf.length - 64));
    }
  })();
  await Bun.sleep(1000); // monitor is up and waiting
  const lat: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    appendFileSync(events, JSON.stringify({ ts: new Date().toISOString(), type: "Error", message: `mark-${i}` }) + "\n");
    while (!seen.has(String(i)) && performance.now() - t0 < 5000) await Bun.sleep(1);
    lat.push((seen.get(String(i)) ?? performance.now()) - t0);
    await Bun.sleep(20 + Math.random() * 80); // appends at irregular times, as a loop makes them
  }
  appendFileSync(events, JSON.stringify({ ts: new Date().toISOString(), type: "Complete", status: "done", reason: "bench", stories_completed: 1,
    stories_total: 1, iterations: 0, total_tokens: 0, total_cost_usd: 0, duration_ms: 0, branch: null, completion: null }) + "\n");
  await mon.exited;
  await reader;
  return { median_ms: median(lat), p95_ms: pct(lat, 95), max_ms: Math.max(...lat), samples };
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────────
await $`bun scripts/build.ts ${BIN}`.cwd(ROOT).quiet();
await $`bun build --compile --minify --no-compile-autoload-dotenv --no-compile-autoload-bunfig --outfile ${EMPTY} scripts/bench/empty.ts`.cwd(ROOT).quiet();
const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? "?", mem_gb: Math.round(totalmem() / 2 ** 30), bun: Bun.version, git: git(work, "--version") };
console.log(`wt-loop benchmark — ${machine.cpus} × ${machine.cpu}, ${machine.mem_gb} GB, bun ${machine.bun}, ${machine.git}; ${RUNS} runs per loop figure\n`);

const only = process.env.BENCH_ONLY; // latency | loops | memory | monitor: run one section
const run = (section: string) => !only || only === section;

const latency = run("latency") ? statusLatency() : null;
if (latency) {
  const row = (label: string, v: number, ratio?: number, target?: number) =>
    console.log(`   ${label.padEnd(32)} ${ms(v).padStart(8)}` + (ratio === undefined ? "" : `   ${ratio.toFixed(2)}× the floor`) +
      (target === undefined || ratio === undefined ? "" : `   target ≤ ${target}×  ${ratio <= target ? "met" : "MISSED"}`));
  console.log("1. Start-up (median of %d runs each, interleaved)", STATUS_RUNS);
  row("empty compiled Bun program", latency.empty_bun_ms);
  row("wt-loop --version", latency.version_ms, latency.version_ratio);
  row("wt-loop --help", latency.help_ms, latency.help_ratio, 3);
  row("wt-loop status, 30 iterations", latency.status_30_ms, latency.status_30_ratio, 4);
  row("wt-loop status, 500 iterations", latency.status_ms, latency.status_ratio, 4);
  row("wt-loop status --json, 500", latency.status_json_ms, latency.status_json_ratio, 4);
  row("git rev-parse (for scale)", latency.git_rev_parse_ms);
  console.log("");
}

const loops = [];
if (run("loops")) console.log("2. Per-iteration overhead: 50 iterations (FAILED/COMPLETE alternating, agent exits at once)");
for (const strategy of run("loops") ? (["branch", "stash"] as const) : [])
  for (const files of SIZES) {
    const r = loopOverhead(strategy, files);
    loops.push(r);
    console.log(`   ${strategy.padEnd(6)} ${String(files).padStart(6)} files   wt-loop ${ms(r.wt_loop_ms_per_iteration).padStart(9)}/iter   raw git ${ms(r.raw_git_ms_per_iteration).padStart(9)}/iter   ${r.ratio.toFixed(2)}×   target ≤ 1.5×  ${r.ratio <= 1.5 ? "met" : "MISSED"}`);
  }

if (run("memory")) console.log("\n3. Streaming memory: peak RSS of `run` while the agent streams stream-json");
const memory: Record<string, number> = {};
for (const [label, big] of run("memory") ? ([["1 KB messages only", false], ["half in 10 MB messages", true]] as const) : []) {
  for (const mb of [20, 200]) {
    const xs: number[] = [];
    for (let i = 0; i < RUNS; i++) xs.push(await peakRss(mb, big ? mb / 20 : 0));
    memory[`${mb}MB${big ? "_with_10MB_messages" : ""}`] = median(xs);
  }
  const [a, b] = [memory[`20MB${big ? "_with_10MB_messages" : ""}`]!, memory[`200MB${big ? "_with_10MB_messages" : ""}`]!];
  const ok = a < 100 && b < 100;
  console.log(`   ${label.padEnd(24)} 20 MB: ${a.toFixed(1)} MB   200 MB: ${b.toFixed(1)} MB   growth ${(b - a).toFixed(1)} MB   target < 100 MB, flat  ${ok ? "met" : "MISSED"}`);
}
console.log("");

const monitor = run("monitor") ? await monitorLatency() : null;
if (monitor) {
  console.log(`4. Monitor latency: append → printed, ${monitor.samples} events`);
  console.log(`   median ${ms(monitor.median_ms)}   p95 ${ms(monitor.p95_ms)}   max ${ms(monitor.max_ms)}   target p95 < 250 ms  ${monitor.p95_ms < 250 ? "met" : "MISSED"}`);
}

const result = { date: new Date().toISOString(), machine, runs: RUNS, latency, loops, memory_peak_rss_mb: memory, monitor };
mkdirSync(join(ROOT, "bench-results"), { recursive: true });
const out = only ? `bench-results/latest-${only}.json` : "bench-results/latest.json";
writeFileSync(join(ROOT, out), JSON.stringify(result, null, 2) + "\n");
console.log(`\nWrote ${out}`);
rmSync(work, { recursive: true, force: true });
