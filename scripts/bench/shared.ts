/**
 * What the benchmarks share: one scratch folder, the built binary, generated repositories, timing and
 * medians. (test/helpers/repo.ts is not reused: it registers its cleanup with bun:test, which only
 * exists under `bun test`, and its repositories are a few named files, not thousands.)
 */
import { $ } from "bun";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, join, resolve } from "node:path";
import { SCHEMA_VERSION } from "../../src/state/schema.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const RUNS = Number(process.env.BENCH_RUNS ?? 3);
export const work = mkdtempSync(join(tmpdir(), "wt-loop-bench-"));
export const BIN = join(work, "wt-loop");
export const EMPTY = join(work, "empty");

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
export const ms = (n: number) => `${n.toFixed(1)} ms`;
/**
 * Every target a benchmark judges, in the order judged: the summary at the end of `bun run bench`
 * ("N of M targets met" and the missed ones) is made of these.
 */
export const targets: { name: string; met: boolean; figure: string }[] = [];

/** Records whether `name` met its target (with the figure that decided it); "met" or "MISSED", for the table. */
export function judge(name: string, met: boolean, figure: string): "met" | "MISSED" {
  targets.push({ name, met, figure });
  return met ? "met" : "MISSED";
}

/** The summary line and the missed targets, one a line. */
export function printTargets(): void {
  const missed = targets.filter((t) => !t.met);
  console.log(`${targets.length - missed.length} of ${targets.length} targets met${missed.length ? "; missed:" : ""}`);
  for (const t of missed) console.log(`   ${t.name}: ${t.figure}`);
}

/** The 1-minute load average now: printed beside the figures, as the machine is shared. */
export const load = () => {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
};

export const gitEnv = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };

/**
 * One run of `argv`: its wall time and the CPU time (user + system, in ms) of it and every process
 * it waited for. On a machine others load, the wall time grows with their work; the CPU time barely does.
 * A failure stops the benchmark.
 */
export function measure(argv: string[], cwd: string, env: Record<string, string | undefined> = process.env): { ms: number; cpuMs: number } {
  const t0 = performance.now();
  const r = Bun.spawnSync(argv, { cwd, env, stdout: "ignore", stderr: "pipe" });
  const dt = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  return { ms: dt, cpuMs: Number(r.resourceUsage.cpuTime.total) / 1000 };
}

/** Wall time of one run of `argv`, in ms. */
export const time = (argv: string[], cwd: string, env: Record<string, string | undefined> = process.env) => measure(argv, cwd, env).ms;

export function git(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: gitEnv, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString().trim();
}

/** A committed repository with `files` small files, 100 per folder, and `tasks.md` of `stories` one-task stories. */
export function makeRepo(name: string, files: number, stories: number): string {
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

export const removeRepo = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** A finished loop's state with `iterations` iterations, as `status` and `monitor` read it. */
export function writeStatusState(repo: string, iterations: number, over: Record<string, unknown> = {}): void {
  const iter = (n: number) => ({
    n,
    started: "2026-11-21T10:00:00.000Z",
    ended: "2026-11-21T10:01:00.000Z",
    done_check: false,
    commits: ["a".repeat(40)],
    tokens_used: 12345,
    story_id: String(n % 25),
    story_title: "A story title",
    attempt: 1 + (n % 3),
    outcome: n % 2 ? "failed" : "complete",
    reason: n % 2 ? "the tests fail in a way that takes a sentence to describe" : null,
    progress: true,
    tokens: { input: 10000, output: 2000, cache_read: 300, cache_creation: 45 },
    cost_usd: 0.12,
    turns: 7,
    exit_code: 0,
    log_file: `${repo}/.claude/logs/iter-${String(n).padStart(3, "0")}.jsonl`,
  });
  const state = {
    schema_version: SCHEMA_VERSION,
    worktree_name: basename(repo),
    worktree_path: repo,
    status: "done",
    current_iteration: iterations,
    max_iterations: Math.max(iterations, 1),
    started_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T18:00:00.000Z",
    ended_at: "2026-11-21T18:00:00.000Z",
    task: "bench",
    iterations: Array.from({ length: iterations }, (_, i) => iter(i + 1)),
    done_criteria: "tasks",
    stall_threshold: 2,
    iteration_timeout_min: 45,
    total_tokens: iterations * 12345,
    tokens: { input: 1, output: 1, cache_read: 1, cache_creation: 1 },
    total_cost_usd: 60,
    max_retries: 3,
    command_timeout_sec: 30,
    agent: "claude",
    agent_cmd: null,
    model: null,
    checkpoint: "branch",
    on_complete: "keep",
    terminal: "inline",
    source: "tasks-file",
    change: null,
    tasks_file: `${repo}/tasks.md`,
    stories_total: 25,
    stories_completed: 25,
    current_story: null,
    runner_pid: null,
    runner_started: null,
    agent_pid: null,
    checkpoint_branch: "ralph/x",
    original_branch: "main",
    original_commit: "b".repeat(40),
    checkpoint_sha: "c".repeat(40),
    completion: "keep",
    reason: "done",
    error: null,
    ...over,
  };
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state, null, 2));
}

/**
 * A finished loop's state as wt-tools' bash wt-loop writes it (the seed's format: no schema_version,
 * `terminal_pid` and token fields of its own), `iterations` iterations; 500 make about 110 KB.
 */
export function writeSeedState(repo: string, iterations: number): void {
  const iter = (n: number) => ({
    n,
    started: "2026-11-21T10:00:05+01:00",
    ended: "2026-11-21T10:10:00+01:00",
    done_check: n % 2 === 0,
    commits: n % 2 ? [] : ["a".repeat(40)],
    tokens_used: 12345,
    timed_out: false,
    log_file: `${repo}/.claude/logs/ralph-iter-${String(n).padStart(3, "0")}.log`,
  });
  const state = {
    worktree_name: basename(repo),
    task: "bench",
    done_criteria: "tasks",
    max_iterations: Math.max(iterations, 1),
    current_iteration: iterations,
    status: "stuck",
    terminal_pid: null,
    started_at: "2026-11-21T10:00:00+01:00",
    stall_threshold: 2,
    iteration_timeout_min: 45,
    total_tokens: iterations * 12345,
    model: null,
    change: null,
    iterations: Array.from({ length: iterations }, (_, i) => iter(i + 1)),
  };
  mkdirSync(join(repo, ".claude"), { recursive: true });
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(state));
}

/** Builds the binary as `bun run build` does, and the empty compiled program that is the start-up floor. */
export async function buildBinaries(): Promise<void> {
  await $`bun scripts/build.ts ${BIN}`.cwd(ROOT).quiet();
  await $`bun build --compile --minify --no-compile-autoload-dotenv --no-compile-autoload-bunfig --outfile ${EMPTY} scripts/bench/empty.ts`.cwd(ROOT).quiet();
}

export function machine() {
  return { cpus: cpus().length, cpu: cpus()[0]?.model ?? "?", mem_gb: Math.round(totalmem() / 2 ** 30), bun: Bun.version, git: git(work, "--version") };
}

export const cleanup = () => rmSync(work, { recursive: true, force: true });

/** For a benchmark file run on its own (`bun scripts/bench/overhead.ts`): build, run, clean up. */
export async function runAlone<T>(bench: () => T | Promise<T>): Promise<T> {
  try {
    await buildBinaries();
    const r = await bench();
    printTargets();
    return r;
  } finally {
    cleanup();
  }
}
