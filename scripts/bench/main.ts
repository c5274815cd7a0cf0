/**
 * `bun run bench`: what wt-loop itself costs, each figure the median of several runs and compared in
 * the same run with the floor that Bun or git sets. Prints a table and writes bench-results/latest.json.
 * Each benchmark is its own file and also runs alone (`bun scripts/bench/overhead.ts`). Ends with
 * "N of M targets met" and the missed ones; a benchmark whose command refuses or fails stops with an error.
 *
 *   BENCH_RUNS=3       runs per figure (loops, memory)      BENCH_STATUS_RUNS=30  runs per latency figure
 *   BENCH_SIZES=1000,10000,50000  repository sizes for the per-iteration overhead
 *   BENCH_ONLY=latency|loops|memory|monitor|screen|parallel|lanes|audit  one section only
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { printLatency, statusLatency } from "./latency.ts";
import { streamingMemory } from "./memory.ts";
import { monitorLatency, printMonitor } from "./monitor.ts";
import { printScreen, screenModel } from "./screen.ts";
import { printScreenTerminal, screenTerminal } from "./screen-terminal.ts";
import { overheads } from "./overhead.ts";
import { parallelWallTime } from "./parallel.ts";
import { laneCosts, printLanes } from "./lanes.ts";
import { auditComparison } from "./audit.ts";
import { buildBinaries, cleanup, machine, printTargets, ROOT, RUNS, targets } from "./shared.ts";

const only = process.env.BENCH_ONLY;
const SECTIONS = ["latency", "loops", "memory", "monitor", "screen", "parallel", "lanes", "audit"];
if (only && !SECTIONS.includes(only)) throw new Error(`BENCH_ONLY=${only}: one of ${SECTIONS.join(", ")}`);
const run = (section: string) => !only || only === section;

try {
  await buildBinaries();
  const m = machine();
  console.log(`wt-loop benchmark — ${m.cpus} × ${m.cpu}, ${m.mem_gb} GB, bun ${m.bun}, ${m.git}; ${RUNS} runs per loop figure\n`);

  /** Runs one benchmark when it is asked for, with a blank line after its figures. */
  const section = async <T>(name: string, bench: () => T | Promise<T>): Promise<T | null> => {
    if (!run(name)) return null;
    const r = await bench();
    console.log("");
    return r;
  };
  const latency = await section("latency", () => printLatency(statusLatency()));
  const loops = (await section("loops", overheads)) ?? [];
  const memory = (await section("memory", streamingMemory)) ?? {};
  const monitor = await section("monitor", async () => printMonitor(await monitorLatency()));
  const screen = await section("screen", async () => ({ model: printScreen(screenModel()), terminal: printScreenTerminal(await screenTerminal()) }));
  const parallel = await section("parallel", parallelWallTime);
  const lanes = await section("lanes", async () => printLanes(await laneCosts()));
  const audit = await section("audit", auditComparison);
  const result = {
    date: new Date().toISOString(),
    machine: m,
    runs: RUNS,
    latency,
    loops,
    memory_peak_rss_mb: memory,
    monitor,
    screen,
    parallel,
    lanes,
    audit,
    targets,
  };
  mkdirSync(join(ROOT, "bench-results"), { recursive: true });
  const out = only ? `bench-results/latest-${only}.json` : "bench-results/latest.json";
  writeFileSync(join(ROOT, out), JSON.stringify(result, null, 2) + "\n");
  console.log(`Wrote ${out}\n`);
  printTargets();
} finally {
  cleanup();
}
