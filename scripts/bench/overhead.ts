/**
 * Per-iteration overhead: a loop of 50 iterations (FAILED and COMPLETE alternating, the agent exits at
 * once) against the same checkpoint work done with plain git from a shell, the floor wt-loop is held
 * to. The two are interleaved (their order alternating run by run), and each figure is a median.
 * BENCH_BASELINE=<binary>: that build's loop too, the three run round-robin (a different one first each
 * round), so an A/B of two builds shares the load of a shared machine.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, gitEnv, judge, load, makeRepo, measure, median, ms, removeRepo, runAlone, RUNS, work } from "./shared.ts";

export const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,50000").split(",").map(Number);
const STORIES = 25; // 50 iterations
const ITERATIONS = STORIES * 2;
let scripts = 0;

function agentScript(counter: string): string {
  const path = join(work, `agent-${++scripts}.sh`);
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

/** The same checkpoint work done with plain git commands from a shell. */
function baselineScript(strategy: "branch" | "stash", agent: string): string {
  const path = join(work, `baseline-${strategy}-${++scripts}.sh`);
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
while [ $i -lt ${ITERATIONS} ]; do
${perIter}
  i=$((i+1))
done
rm -f out.txt
`,
  );
  return path;
}

type PerIteration = { ms: number; cpuMs: number };
const perIteration = (m: PerIteration): PerIteration => ({ ms: m.ms / ITERATIONS, cpuMs: m.cpuMs / ITERATIONS });

/** Wall and CPU ms per iteration of a whole wt-loop run (`bin`) on a fresh repository of `files` files. */
export function wtLoopRun(bin: string, strategy: "branch" | "stash", files: number): PerIteration {
  const repo = makeRepo(`loop-${strategy}-${files}-${++scripts}`, files, STORIES);
  const args = [
    bin,
    "start",
    "--terminal",
    "inline",
    "--agent",
    "command",
    "--agent-cmd",
    `sh ${agentScript(join(work, `count-${scripts}`))}`,
    "--checkpoint",
    strategy,
    "--on-complete",
    "keep",
    "--max",
    String(ITERATIONS),
  ];
  const t = measure(args, repo, { ...gitEnv, OPENSPEC_TELEMETRY: "0" });
  const state = JSON.parse(readFileSync(join(repo, ".claude/loop-state.json"), "utf8"));
  if (state.status !== "done" || state.iterations.length !== ITERATIONS) throw new Error(`bench loop ended ${state.status} after ${state.iterations.length}`);
  removeRepo(repo);
  return perIteration(t);
}

/** The same per iteration for the work in plain git. */
export function rawGitRun(strategy: "branch" | "stash", files: number): PerIteration {
  const repo = makeRepo(`raw-${strategy}-${files}-${++scripts}`, files, STORIES);
  const t = measure(["sh", baselineScript(strategy, agentScript(join(work, `count-${scripts}`)))], repo, gitEnv);
  removeRepo(repo);
  return perIteration(t);
}

const BASELINE = process.env.BENCH_BASELINE;

export function loopOverhead(strategy: "branch" | "stash", files: number) {
  const ours: PerIteration[] = [];
  const raw: PerIteration[] = [];
  const base: PerIteration[] = [];
  const arms = [() => ours.push(wtLoopRun(BIN, strategy, files)), () => raw.push(rawGitRun(strategy, files))];
  if (BASELINE) arms.push(() => base.push(wtLoopRun(BASELINE, strategy, files)));
  for (let run = 0; run < RUNS; run++) for (let k = 0; k < arms.length; k++) arms[(run + k) % arms.length]!();
  const med = (xs: PerIteration[], k: keyof PerIteration) => median(xs.map((x) => x[k]));
  const baseline = BASELINE
    ? {
        baseline_ms_per_iteration: med(base, "ms"),
        baseline_ratio: med(base, "ms") / med(raw, "ms"),
        baseline_cpu_ms_per_iteration: med(base, "cpuMs"),
        baseline_cpu_ratio: med(base, "cpuMs") / med(raw, "cpuMs"),
      }
    : {};
  return {
    ...baseline,
    strategy,
    files,
    wt_loop_ms_per_iteration: med(ours, "ms"),
    raw_git_ms_per_iteration: med(raw, "ms"),
    ratio: med(ours, "ms") / med(raw, "ms"),
    wt_loop_cpu_ms_per_iteration: med(ours, "cpuMs"),
    raw_git_cpu_ms_per_iteration: med(raw, "cpuMs"),
    cpu_ratio: med(ours, "cpuMs") / med(raw, "cpuMs"),
  };
}

export function overheads() {
  console.log(`2. Per-iteration overhead: ${ITERATIONS} iterations (FAILED/COMPLETE alternating, agent exits at once)`);
  const loops = [];
  for (const strategy of ["branch", "stash"] as const)
    for (const files of SIZES) {
      const load0 = load();
      const r = { ...loopOverhead(strategy, files), load: [load0, load()] };
      loops.push(r);
      console.log(
        `   ${strategy.padEnd(6)} ${String(files).padStart(6)} files   wt-loop ${ms(r.wt_loop_ms_per_iteration).padStart(9)}/iter   raw git ${ms(r.raw_git_ms_per_iteration).padStart(9)}/iter   ${r.ratio.toFixed(2)}×   target ≤ 1.5×  ${judge(`per iteration, ${strategy}, ${files} files`, r.ratio <= 1.5, `${r.ratio.toFixed(2)}× raw git (CPU ${r.cpu_ratio.toFixed(2)}×), load ${r.load.join(" → ")}`)}`,
      );
      console.log(
        `   ${"".padEnd(19)} CPU     ${ms(r.wt_loop_cpu_ms_per_iteration).padStart(9)}/iter   raw git ${ms(r.raw_git_cpu_ms_per_iteration).padStart(9)}/iter   ${r.cpu_ratio.toFixed(2)}×   load ${r.load.join(" → ")}`,
      );
      if (r.baseline_ms_per_iteration !== undefined)
        console.log(
          `   ${"".padEnd(19)} baseline ${ms(r.baseline_ms_per_iteration).padStart(8)}/iter (${r.baseline_ratio!.toFixed(2)}×)   CPU ${ms(r.baseline_cpu_ms_per_iteration!)}/iter (${r.baseline_cpu_ratio!.toFixed(2)}×)   ${BASELINE}`,
        );
    }
  return loops;
}

if (import.meta.main) await runAlone(overheads);
