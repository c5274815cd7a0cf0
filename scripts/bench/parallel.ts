/**
 * `--parallel` wall time (issue 22): 6 independent stories, an agent that takes 3 s each, run with `--parallel 1`
 * and `--parallel 3` in the same run. The target is parallel ≤ 0.45 × sequential (3 lanes at best give 1/3;
 * the rest is lanes opening and closing, and integrating one at a time). `bun scripts/bench/parallel.ts` alone.
 * BENCH_BASELINE=<binary>: that build's figures too, round-robin with this one in the same run (a different one
 * first each round), as the machine is shared and its load moves more than one build differs from another.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, judge, load, makeRepo, measure, median, removeRepo, runAlone, RUNS, work } from "./shared.ts";

const STORIES = 6;
const AGENT_SEC = 3;
const TARGET = 0.45;

/** Sleeps, ticks its story's box (read from the prompt), writes a file of its own, reports COMPLETE. */
function agentScript(): string {
  const file = join(work, "parallel-agent.sh");
  writeFileSync(
    file,
    `prompt=$(cat)\nS=$(printf '%s\\n' "$prompt" | sed -n 's/^## Your story: \\([^.]*\\)\\. .*/\\1/p' | head -n 1)\nsleep ${AGENT_SEC}\n` +
      `sed -i "s/^- \\[ \\] $S\\.1 /- [x] $S.1 /" tasks.md\necho "story $S" > "story-$S.txt"\necho '<promise>COMPLETE</promise>'\n`,
  );
  return file;
}

const BASELINE = process.env.BENCH_BASELINE;

function loopOnce(bin: string, lanes: number, agent: string, n: number): number {
  const repo = makeRepo(`parallel-${lanes}-${n}`, 20, STORIES);
  const args = [
    bin,
    "start",
    "--plain",
    "--terminal",
    "inline",
    "--agent",
    "command",
    "--agent-cmd",
    `sh ${agent}`,
    "--on-complete",
    "keep",
    "--parallel",
    String(lanes),
  ];
  const { ms } = measure(args, repo, { ...process.env, NO_COLOR: "1" });
  if (readFileSync(join(repo, "tasks.md"), "utf8").includes("- [ ]")) throw new Error(`--parallel ${lanes}: stories were left open`);
  removeRepo(repo);
  return ms;
}

export interface ParallelResult {
  stories: number;
  agent_sec: number;
  sequential_ms: number;
  parallel3_ms: number;
  ratio: number;
  target: number;
}

export function parallelWallTime(): ParallelResult {
  const agent = agentScript();
  const builds = [{ name: "this build", bin: BIN, seq: [] as number[], par: [] as number[] }];
  if (BASELINE) builds.push({ name: `baseline ${BASELINE}`, bin: BASELINE, seq: [], par: [] });
  const loadBefore = load();
  for (let i = 0; i < RUNS; i++)
    for (let k = 0; k < builds.length; k++) {
      const b = builds[(i + k) % builds.length]!;
      b.seq.push(loopOnce(b.bin, 1, agent, i));
      b.par.push(loopOnce(b.bin, 3, agent, i));
    }
  const [self] = builds;
  const r = {
    stories: STORIES,
    agent_sec: AGENT_SEC,
    sequential_ms: median(self!.seq),
    parallel3_ms: median(self!.par),
    ratio: median(self!.par) / median(self!.seq),
    target: TARGET,
  };
  console.log(
    `--parallel: ${STORIES} independent stories, an agent of ${AGENT_SEC} s each (median of ${RUNS}${BASELINE ? ", builds round-robin" : ""}), load ${loadBefore} → ${load()}`,
  );
  for (const b of builds.slice(1)) {
    const ratio = median(b.par) / median(b.seq);
    console.log(
      `  ${b.name}: --parallel 1 ${(median(b.seq) / 1000).toFixed(1)} s, --parallel 3 ${(median(b.par) / 1000).toFixed(1)} s = ${ratio.toFixed(2)} × sequential`,
    );
  }
  console.log(`  --parallel 1   ${(r.sequential_ms / 1000).toFixed(1)} s`);
  console.log(
    `  --parallel 3   ${(r.parallel3_ms / 1000).toFixed(1)} s   = ${r.ratio.toFixed(2)} × sequential (target ≤ ${TARGET}) ${judge("--parallel 3 wall time", r.ratio <= TARGET, `${r.ratio.toFixed(2)}× --parallel 1, target ≤ ${TARGET}×`)}   load ${load()}`,
  );
  return r;
}

if (import.meta.main) await runAlone(parallelWallTime);
