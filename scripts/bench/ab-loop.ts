/**
 * An A/B of the per-iteration overhead (docs/performance.md): builds of wt-loop and raw git, run
 * round-robin in one process (a different one first each round), so the load of a shared machine
 * falls on all of them alike. Wall and CPU time per iteration, each a median.
 *
 *   bun scripts/bench/ab-loop.ts <branch|stash> <files> <runs> <binary> [<binary>…]
 */
import { cleanup, load, median, ms } from "./shared.ts";
import { rawGitRun, wtLoopRun } from "./overhead.ts";

const [strategy, files, runs, ...bins] = process.argv.slice(2);
if ((strategy !== "branch" && strategy !== "stash") || !bins.length) throw new Error("usage: ab-loop.ts <branch|stash> <files> <runs> <binary> [<binary>…]");
const arms: [string, () => { ms: number; cpuMs: number }][] = [
  ...bins.map((b) => [b, () => wtLoopRun(b, strategy, Number(files))] as [string, () => { ms: number; cpuMs: number }]),
  ["raw git", () => rawGitRun(strategy, Number(files))],
];
const got = new Map<string, { ms: number; cpuMs: number }[]>(arms.map(([name]) => [name, []]));
const load0 = load();
try {
  for (let i = 0; i < Number(runs); i++)
    for (let k = 0; k < arms.length; k++) {
      const [name, run] = arms[(i + k) % arms.length]!;
      got.get(name)!.push(run());
    }
  const raw = got.get("raw git")!;
  const [rawMs, rawCpu] = [median(raw.map((x) => x.ms)), median(raw.map((x) => x.cpuMs))];
  for (const [name, xs] of got) {
    const [w, c] = [median(xs.map((x) => x.ms)), median(xs.map((x) => x.cpuMs))];
    console.log(
      `${name}\n   ${ms(w)}/iter (${(w / rawMs).toFixed(2)}×)   CPU ${ms(c)}/iter (${(c / rawCpu).toFixed(2)}×)   wall ${xs.map((x) => x.ms.toFixed(0)).join(" ")}; CPU ${xs.map((x) => x.cpuMs.toFixed(0)).join(" ")}`,
    );
  }
  console.log(`${strategy}, ${files} files, ${runs} runs each, load ${load0} → ${load()}`);
} finally {
  cleanup();
}
