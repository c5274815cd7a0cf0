/**
 * Start-up: each command against an empty compiled Bun program, measured round-robin in this run
 * (so machine noise hits every command alike), the median of BENCH_STATUS_RUNS runs each.
 */
import { BIN, EMPTY, makeRepo, median, ms, runAlone, time, writeStatusState } from "./shared.ts";

const STATUS_RUNS = Number(process.env.BENCH_STATUS_RUNS ?? 30);

export function statusLatency() {
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
  const xs: Record<string, number[]> = Object.fromEntries(Object.keys(argvs).map((k) => [k, []]));
  for (const [argv, cwd] of Object.values(argvs)) time(argv, cwd); // warm the page cache
  for (let i = 0; i < STATUS_RUNS; i++) for (const [k, [argv, cwd]] of Object.entries(argvs)) xs[k]!.push(time(argv, cwd));
  const m = (k: string) => median(xs[k]!);
  const empty = m("empty");
  return {
    empty_bun_ms: empty, version_ms: m("version"), help_ms: m("help"), status_30_ms: m("status_30"), status_ms: m("status_500"),
    status_json_ms: m("status_json_500"), git_rev_parse_ms: m("rev"),
    version_ratio: m("version") / empty, help_ratio: m("help") / empty, status_30_ratio: m("status_30") / empty,
    status_ratio: m("status_500") / empty, status_json_ratio: m("status_json_500") / empty,
  };
}

export function printLatency(l: ReturnType<typeof statusLatency>): ReturnType<typeof statusLatency> {
  const row = (label: string, v: number, ratio?: number, target?: number) =>
    console.log(`   ${label.padEnd(32)} ${ms(v).padStart(8)}` + (ratio === undefined ? "" : `   ${ratio.toFixed(2)}× the floor`) +
      (target === undefined || ratio === undefined ? "" : `   target ≤ ${target}×  ${ratio <= target ? "met" : "MISSED"}`));
  console.log("1. Start-up (median of %d runs each, interleaved)", STATUS_RUNS);
  row("empty compiled Bun program", l.empty_bun_ms);
  row("wt-loop --version", l.version_ms, l.version_ratio);
  row("wt-loop --help", l.help_ms, l.help_ratio, 3);
  row("wt-loop status, 30 iterations", l.status_30_ms, l.status_30_ratio, 4);
  row("wt-loop status, 500 iterations", l.status_ms, l.status_ratio, 4);
  row("wt-loop status --json, 500", l.status_json_ms, l.status_json_ratio, 4);
  row("git rev-parse (for scale)", l.git_rev_parse_ms);
  return l;
}

if (import.meta.main) await runAlone(() => printLatency(statusLatency()));
