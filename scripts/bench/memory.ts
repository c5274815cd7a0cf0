/**
 * Streaming memory: the peak RSS of `run` while the agent streams stream-json (stream-agent.ts).
 * BENCH_BASELINE=<binary>: the same figures for that build too, round-robin with this one in the same
 * run (a different one first each round), so a change is measured against main on the same machine load.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, gitEnv, judge, load, makeRepo, median, removeRepo, ROOT, runAlone, RUNS, work } from "./shared.ts";

let repos = 0;
const BASELINE = process.env.BENCH_BASELINE;

/** Peak RSS in MB of one loop whose agent streams `mb` MB, `big` of them as 10 MB messages. */
async function peakRss(bin: string, mb: number, big: number): Promise<number> {
  const repo = makeRepo(`stream-${mb}-${++repos}`, 10, 1);
  const binDir = join(work, "stream-bin");
  mkdirSync(binDir, { recursive: true });
  writeFileSync(join(binDir, "claude"), `#!/bin/sh\nexec bun ${join(ROOT, "scripts/bench/stream-agent.ts")}\n`, { mode: 0o755 });
  const proc = Bun.spawn([bin, "start", "--terminal", "inline", "--done", "manual", "--on-complete", "keep", "stream"], {
    cwd: repo,
    env: { ...gitEnv, PATH: `${binDir}:${process.env.PATH}`, BENCH_STREAM_MB: String(mb), BENCH_BIG_MESSAGES: String(big) },
    stdout: "ignore",
    stderr: "ignore",
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
  if (state.status !== "done") throw new Error(`stream bench ended ${state.status}: ${state.reason}`);
  // The agent really streamed what was asked (its log is the stream, kept by the runner).
  const log = state.iterations[0]?.log_file;
  const size = log ? statSync(log).size : 0;
  if (size < mb * 1024 * 1024 * 0.9) throw new Error(`stream bench: the agent's log holds ${size} bytes, not ${mb} MB (${log})`);
  if (peak === 0) throw new Error("stream bench: the runner's peak RSS was never read");
  removeRepo(repo);
  return peak;
}

export async function streamingMemory(): Promise<Record<string, number>> {
  console.log(`3. Streaming memory: peak RSS of \`run\` while the agent streams stream-json (load ${load()})`);
  const memory: Record<string, number> = {};
  for (const [label, big] of [
    ["1 KB messages only", false],
    ["half in 10 MB messages", true],
  ] as const) {
    const key = (mb: number) => `${mb}MB${big ? "_with_10MB_messages" : ""}`;
    for (const mb of [20, 200]) {
      const xs: number[] = [];
      const bs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        if (BASELINE && i % 2 === 0) bs.push(await peakRss(BASELINE, mb, big ? mb / 20 : 0));
        xs.push(await peakRss(BIN, mb, big ? mb / 20 : 0));
        if (BASELINE && i % 2 === 1) bs.push(await peakRss(BASELINE, mb, big ? mb / 20 : 0));
      }
      memory[key(mb)] = median(xs);
      if (BASELINE) memory[`baseline_${key(mb)}`] = median(bs);
    }
    const [a, b] = [memory[key(20)]!, memory[key(200)]!];
    // Flat: ten times the stream costs less than 10 MB more.
    const ok = a < 100 && b < 100 && b - a < 10;
    const baseline = BASELINE ? `   baseline ${memory[`baseline_${key(20)}`]!.toFixed(1)} / ${memory[`baseline_${key(200)}`]!.toFixed(1)} MB` : "";
    console.log(
      `   ${label.padEnd(24)} 20 MB: ${a.toFixed(1)} MB   200 MB: ${b.toFixed(1)} MB   growth ${(b - a).toFixed(1)} MB   target < 100 MB, flat  ${judge(`peak RSS, ${label}`, ok, `${a.toFixed(1)} / ${b.toFixed(1)} MB, target < 100 MB`)}${baseline}   load ${load()}`,
    );
  }
  return memory;
}

if (import.meta.main) await runAlone(streamingMemory);
