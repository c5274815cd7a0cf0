/** Monitor latency: an event appended to the log → printed by `wt-loop monitor`. */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTime } from "../../src/proc/pid.ts";
import { BIN, makeRepo, median, ms, pct, runAlone, writeStatusState } from "./shared.ts";

export async function monitorLatency(samples = 60) {
  const repo = makeRepo("monitor-repo", 10, 1);
  // A loop "running" in this process, so monitor follows it.
  writeStatusState(repo, 0, {
    status: "running", started_at: new Date(Date.now() - 1000).toISOString(), iterations: [], runner_pid: process.pid,
    runner_started: processStartTime(process.pid), ended_at: null,
  });
  const events = join(repo, ".claude/loop-events.jsonl");
  writeFileSync(events, "");
  const mon = Bun.spawn([BIN, "monitor"], { cwd: repo, env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "ignore" });
  const seen = new Map<string, number>();
  const reader = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of mon.stdout) {
      const now = performance.now();
      buf += dec.decode(chunk);
      for (const m of buf.matchAll(/mark-(\d+)/g)) if (!seen.has(m[1]!)) seen.set(m[1]!, now);
      buf = buf.slice(Math.max(0, buf.length - 64));
    }
  })();
  await Bun.sleep(1000); // monitor is up and waiting
  const lat: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    appendFileSync(events, JSON.stringify({ ts: new Date().toISOString(), type: "Error", message: `mark-${i}` }) + "\n");
    while (!seen.has(String(i)) && performance.now() - t0 < 5000) await Bun.sleep(1);
    lat.push((seen.get(String(i)) ?? performance.now()) - t0);
    await Bun.sleep(20 + Math.random() * 80); // appends at irregular times, as a loop makes them
  }
  appendFileSync(events, JSON.stringify({ ts: new Date().toISOString(), type: "Complete", status: "done", reason: "bench", stories_completed: 1,
    stories_total: 1, iterations: 0, total_tokens: 0, total_cost_usd: 0, duration_ms: 0, branch: null, completion: null }) + "\n");
  await mon.exited;
  await reader;
  return { median_ms: median(lat), p95_ms: pct(lat, 95), max_ms: Math.max(...lat), samples };
}

export function printMonitor(m: Awaited<ReturnType<typeof monitorLatency>>): Awaited<ReturnType<typeof monitorLatency>> {
  console.log(`4. Monitor latency: append → printed, ${m.samples} events`);
  console.log(`   median ${ms(m.median_ms)}   p95 ${ms(m.p95_ms)}   max ${ms(m.max_ms)}   target p95 < 250 ms  ${m.p95_ms < 250 ? "met" : "MISSED"}`);
  return m;
}

if (import.meta.main) await runAlone(async () => printMonitor(await monitorLatency()));
