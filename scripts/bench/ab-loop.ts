/**
 * An A/B of the per-iteration overhead (docs/performance.md): two builds of wt-loop and raw git, run
 * round-robin in one process, so the load of a shared machine falls on all of them alike.
 *
 *   bun scripts/bench/ab-loop.ts <binary A> <binary B> [branch|stash] [files] [runs]
 */
import { cleanup, load, median, ms } from "./shared.ts";
import { rawGitRun, wtLoopRun } from "./overhead.ts";

const [a, b, strategy = "branch", files = "1000", runs = "5"] = process.argv.slice(2);
if (!a || !b || (strategy !== "branch" && strategy !== "stash")) throw new Error("usage: ab-loop.ts <binary A> <binary B> [branch|stash] [files] [runs]");
const arms = { A: (f: number) => wtLoopRun(a, strategy, f), B: (f: number) => wtLoopRun(b, strategy, f), raw: (f: number) => rawGitRun(strategy, f) };
const got: Record<string, { ms: number; cpuMs: number }[]> = { A: [], B: [], raw: [] };
const load0 = load();
try {
  for (let i = 0; i < Number(runs); i++) {
    const order = Object.keys(arms) as (keyof typeof arms)[];
    // A different arm first each round.
    for (let k = 0; k < order.length; k++) {
      const arm = order[(i + k) % order.length]!;
      got[arm]!.push(arms[arm](Number(files)));
    }
  }
  const raw = median(got.raw!.map((x) => x.ms));
  const rawCpu = median(got.raw!.map((x) => x.cpuMs));
  for (const [arm, xs] of Object.entries(got)) {
    const w = median(xs.map((x) => x.ms));
    const c = median(xs.map((x) => x.cpuMs));
    console.log(
      `${arm.padEnd(4)} ${ms(w).padStart(9)}/iter (${(w / raw).toFixed(2)}×)   CPU ${ms(c).padStart(9)}/iter (${(c / rawCpu).toFixed(2)}×)   all: ${xs.map((x) => x.ms.toFixed(0)).join(" ")}; CPU ${xs.map((x) => x.cpuMs.toFixed(0)).join(" ")}`,
    );
  }
  console.log(`${strategy}, ${files} files, ${runs} runs each, load ${load0} → ${load()}`);
} finally {
  cleanup();
}
