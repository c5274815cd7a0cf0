/**
 * `--parallel` wall time (issue 22): 6 independent stories, an agent that takes 3 s each, run with `--parallel 1`
 * and `--parallel 3` in the same run. The target is parallel ≤ 0.45 × sequential (3 lanes at best give 1/3;
 * the rest is lanes opening and closing, and integrating one at a time). `bun scripts/bench/parallel.ts` alone.
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

function loopOnce(lanes: number, agent: string, n: number): number {
  const repo = makeRepo(`parallel-${lanes}-${n}`, 20, STORIES);
  const args = [
    BIN,
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
  const seq: number[] = [];
  const par: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    seq.push(loopOnce(1, agent, i));
    par.push(loopOnce(3, agent, i));
  }
  const r = { stories: STORIES, agent_sec: AGENT_SEC, sequential_ms: median(seq), parallel3_ms: median(par), ratio: median(par) / median(seq), target: TARGET };
  console.log(`--parallel: ${STORIES} independent stories, an agent of ${AGENT_SEC} s each (median of ${RUNS})`);
  console.log(`  --parallel 1   ${(r.sequential_ms / 1000).toFixed(1)} s`);
  console.log(
    `  --parallel 3   ${(r.parallel3_ms / 1000).toFixed(1)} s   = ${r.ratio.toFixed(2)} × sequential (target ≤ ${TARGET}) ${judge("--parallel 3 wall time", r.ratio <= TARGET, `${r.ratio.toFixed(2)}× --parallel 1, target ≤ ${TARGET}×`)}   load ${load()}`,
  );
  return r;
}

if (import.meta.main) await runAlone(parallelWallTime);
