/**
 * Start-up: each command against an empty compiled Bun program, measured round-robin in this run
 * (so machine noise hits every command alike), the median of BENCH_STATUS_RUNS runs each, wall time
 * and CPU time (of the process and what it waited for: on a shared machine the wall time grows with
 * the others' work, the CPU time barely does). `status` is measured on both state formats it reads:
 * its own and the seed's (wt-tools' bash wt-loop: no schema_version). `history` and `list` read the same
 * state; `list` waits for one `git worktree list` besides (a `git rev-parse` is measured for scale).
 * BENCH_BASELINE=<binary>: each command run by that build too, in the same rounds (every other round
 * in the reverse order), and each figure printed against it.
 */
import { BIN, EMPTY, judge, load, makeRepo, measure, median, ms, runAlone, writeSeedState, writeStatusState } from "./shared.ts";

const STATUS_RUNS = Number(process.env.BENCH_STATUS_RUNS ?? 30);
const BASELINE = process.env.BENCH_BASELINE;

/** What each command must print for its figure to count: a command that answers with an error is not measured. */
function check(argv: string[], cwd: string, expect: RegExp): void {
  const r = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString();
  if (r.exitCode !== 0 || !expect.test(out))
    throw new Error(`start-up bench: ${argv.join(" ")} in ${cwd} exited ${r.exitCode} without ${expect}:\n${out}${r.stderr}`);
}

type Row = { key: string; label: string; argv: string[]; cwd: string; expect?: RegExp; target?: number; baseOf?: string };

export function statusLatency() {
  const load0 = load();
  const native30 = makeRepo("status-30", 10, 1);
  writeStatusState(native30, 30);
  const native = makeRepo("status-repo", 10, 1);
  writeStatusState(native, 500);
  const seed30 = makeRepo("status-seed-30", 10, 1);
  writeSeedState(seed30, 30);
  const seed = makeRepo("status-seed", 10, 1);
  writeSeedState(seed, 500);
  const rows: Row[] = [
    { key: "empty", label: "empty compiled Bun program", argv: [EMPTY], cwd: native },
    { key: "version", label: "wt-loop --version", argv: [BIN, "--version"], cwd: native, expect: /\d+\.\d+\.\d+/ },
    { key: "help", label: "wt-loop --help", argv: [BIN, "--help"], cwd: native, expect: /monitor/, target: 2 },
    { key: "status_30", label: "status, 30 iterations", argv: [BIN, "status"], cwd: native30, expect: /Iteration: +30\/30/, target: 3 },
    { key: "status_500", label: "status, 500 iterations", argv: [BIN, "status"], cwd: native, expect: /Iteration: +500\/500/, target: 3 },
    { key: "status_json_500", label: "status --json, 500", argv: [BIN, "status", "--json"], cwd: native, expect: /"current_iteration": 500/, target: 3 },
    { key: "seed_30", label: "status, seed format, 30", argv: [BIN, "status"], cwd: seed30, expect: /Iteration: +30\/30/, target: 3 },
    { key: "seed_500", label: "status, seed format, 500", argv: [BIN, "status"], cwd: seed, expect: /Iteration: +500\/500/, target: 3 },
    {
      key: "seed_json_500",
      label: "status --json, seed format, 500",
      argv: [BIN, "status", "--json"],
      cwd: seed,
      expect: /"current_iteration": 500/,
      target: 3,
    },
    // The other read-only commands run often, on the same 500 iterations (list also runs `git worktree list`).
    { key: "history_500", label: "history, 500 iterations", argv: [BIN, "history"], cwd: native, expect: /Total: 500 iterations/, target: 3 },
    { key: "list", label: "list (one worktree, 500)", argv: [BIN, "list"], cwd: native, expect: /status-repo/, target: 3.5 },
    { key: "rev", label: "git rev-parse (for scale)", argv: ["git", "rev-parse", "--show-toplevel"], cwd: native },
  ];
  if (BASELINE)
    for (const r of rows.filter((r) => r.argv[0] === BIN))
      rows.push({
        key: `${r.key}_baseline`,
        label: `${r.label} (baseline)`,
        argv: [BASELINE, ...r.argv.slice(1)],
        cwd: r.cwd,
        expect: r.expect,
        baseOf: r.key,
      });
  for (const r of rows) if (r.expect) check(r.argv, r.cwd, r.expect);
  const wall: Record<string, number[]> = Object.fromEntries(rows.map((r) => [r.key, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(rows.map((r) => [r.key, []]));
  for (const r of rows) measure(r.argv, r.cwd); // warm the page cache
  for (let i = 0; i < STATUS_RUNS; i++)
    for (const r of i % 2 ? [...rows].reverse() : rows) {
      const m = measure(r.argv, r.cwd);
      wall[r.key]!.push(m.ms);
      cpu[r.key]!.push(m.cpuMs);
    }
  const empty = median(wall.empty!),
    emptyCpu = median(cpu.empty!);
  return {
    runs: STATUS_RUNS,
    load: [load0, load()],
    rows: rows.map((r) => ({
      key: r.key,
      label: r.label,
      ms: median(wall[r.key]!),
      cpu_ms: median(cpu[r.key]!),
      ratio: median(wall[r.key]!) / empty,
      cpu_ratio: median(cpu[r.key]!) / emptyCpu,
      target: r.target ?? null,
      baseline_of: r.baseOf ?? null,
    })),
  };
}

export function printLatency(l: ReturnType<typeof statusLatency>): ReturnType<typeof statusLatency> {
  console.log(`1. Start-up (median of ${l.runs} runs each, interleaved; load ${l.load.join(" → ")})`);
  for (const r of l.rows) {
    const judged =
      r.target === null
        ? ""
        : `   target ≤ ${r.target}×  ${judge(`start-up: ${r.label}`, r.ratio <= r.target, `${r.ratio.toFixed(2)}× the empty program (CPU ${r.cpu_ratio.toFixed(2)}×), load ${l.load.join(" → ")}`)}`;
    const ratio = r.key === "empty" || r.key === "rev" ? "" : `   ${r.ratio.toFixed(2)}× (CPU ${r.cpu_ratio.toFixed(2)}×) the floor`;
    const base = l.rows.find((b) => b.baseline_of === r.key);
    const against = base ? `   against the baseline ${(r.ms / base.ms).toFixed(2)}× (CPU ${(r.cpu_ms / base.cpu_ms).toFixed(2)}×)` : "";
    console.log(`   ${r.label.padEnd(32)} ${ms(r.ms).padStart(8)}  CPU ${ms(r.cpu_ms).padStart(8)}${ratio}${judged}${against}`);
  }
  return l;
}

if (import.meta.main) await runAlone(() => printLatency(statusLatency()));
