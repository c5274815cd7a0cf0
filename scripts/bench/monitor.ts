/**
 * Monitor latency: a real loop (`wt-loop run`, its agent a script that prints numbered marks at
 * irregular times, each with the time it was printed) followed by `wt-loop monitor` in another process.
 * For each mark: agent printed → monitor printed (what a person watching sees), split at the moment the
 * runner appended it to the event log (the event's `ts`, millisecond resolution). Anything that keeps
 * the measurement from happening — the run or the monitor ending with an error, a mark never shown —
 * stops the benchmark instead of becoming a figure.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, gitEnv, judge, load, makeRepo, median, ms, pct, runAlone, work } from "./shared.ts";

const SAMPLES = Number(process.env.BENCH_MONITOR_SAMPLES ?? 60);
const TARGET_MS = 250;

/** The agent: waits for `go` (monitor is following), prints SAMPLES marks 20–300 ms apart, ticks its box, says COMPLETE. */
function agentScript(go: string): string {
  const path = join(work, "monitor-agent.ts");
  writeFileSync(
    path,
    `import { existsSync, readFileSync, writeFileSync } from "node:fs";
await Bun.stdin.text();
const t0 = Date.now();
while (!existsSync(${JSON.stringify(go)})) {
  if (Date.now() - t0 > 60_000) { console.log("<promise>FAILED: the bench never said go</promise>"); process.exit(1); }
  await Bun.sleep(5);
}
const now = () => performance.timeOrigin + performance.now();
for (let i = 0; i < ${SAMPLES}; i++) {
  // Irregular gaps, some past the runner's quiet-time read interval, as an agent's output comes.
  await Bun.sleep(20 + Math.random() * 280);
  console.log(\`mark-\${i} \${now().toFixed(2)}\`);
}
writeFileSync("tasks.md", readFileSync("tasks.md", "utf8").replace("- [ ]", "- [x]"));
console.log("<promise>COMPLETE</promise>");
`,
  );
  return path;
}

async function readAll(stream: ReadableStream<Uint8Array>, onText: (text: string, at: number) => void): Promise<string> {
  const dec = new TextDecoder();
  let all = "";
  for await (const chunk of stream) {
    const at = performance.timeOrigin + performance.now();
    const text = dec.decode(chunk, { stream: true });
    all += text;
    onText(all, at);
  }
  return all;
}

export async function monitorLatency() {
  const load0 = load();
  const repo = makeRepo("monitor-repo", 10, 1);
  const go = join(work, "monitor-go");
  const env = { ...gitEnv, NO_COLOR: "1", OPENSPEC_TELEMETRY: "0" };
  const run = Bun.spawn([BIN, "run", "--plain", "--agent", "command", "--agent-cmd", `bun ${agentScript(go)}`, "--on-complete", "keep", "--max", "1"], {
    cwd: repo,
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const runOut = readAll(run.stdout, () => {});
  const runErr = new Response(run.stderr).text();
  const fail = async (why: string, monOut = ""): Promise<never> => {
    run.kill();
    throw new Error(`monitor bench: ${why}\n--- run (exit ${await run.exited}):\n${await runOut}${await runErr}\n--- monitor:\n${monOut}`);
  };
  // The runner has written its state (running, its own pid): monitor then follows a live runner.
  const state = join(repo, ".claude/loop-state.json");
  const t0 = Date.now();
  for (;;) {
    const s = existsSync(state) ? (JSON.parse(readFileSync(state, "utf8") || "{}") as { status?: string; runner_pid?: number }) : {};
    if (s.status === "running" && s.runner_pid === run.pid) break;
    if (run.exitCode !== null) await fail("the run ended before it was running");
    if (Date.now() - t0 > 30_000) await fail("the run was not running after 30 s");
    await Bun.sleep(10);
  }
  const mon = Bun.spawn([BIN, "monitor", "--plain"], { cwd: repo, env, stdout: "pipe", stderr: "pipe" });
  const shown = new Map<number, { printed: number; shown: number }>();
  let going = false;
  const monOut = readAll(mon.stdout, (all, at) => {
    // The monitor has caught up with the log (the iteration's header is on screen): the marks may come.
    if (!going && /iteration 1\//.test(all)) (going = true), writeFileSync(go, "");
    for (const m of all.slice(-4096).matchAll(/mark-(\d+) (\d+\.\d+)/g))
      if (!shown.has(Number(m[1]))) shown.set(Number(m[1]), { printed: Number(m[2]), shown: at });
  });
  const monErr = new Response(mon.stderr).text();
  const [monCode, runCode] = await Promise.all([mon.exited, run.exited]);
  const out = (await monOut) + (await monErr);
  if (runCode !== 0) await fail(`the run exited ${runCode}`, out);
  if (monCode !== 0) await fail(`the monitor exited ${monCode}`, out);
  if (shown.size !== SAMPLES) await fail(`the monitor showed ${shown.size} of ${SAMPLES} marks`, out);
  // When the runner appended each mark: its event's ts.
  const appended = new Map<number, number>();
  for (const line of readFileSync(join(repo, ".claude/loop-events.jsonl"), "utf8").split("\n")) {
    const m = /"text":"mark-(\d+) /.exec(line);
    if (m) appended.set(Number(m[1]), Date.parse(JSON.parse(line).ts));
  }
  if (appended.size !== SAMPLES) await fail(`the event log holds ${appended.size} of ${SAMPLES} marks`, out);
  const total = [...shown.values()].map((s) => s.shown - s.printed);
  const follow = [...shown.entries()].map(([i, s]) => s.shown - appended.get(i)!);
  const runner = [...shown.entries()].map(([i, s]) => appended.get(i)! - s.printed);
  return {
    samples: SAMPLES,
    median_ms: median(total),
    p95_ms: pct(total, 95),
    max_ms: Math.max(...total),
    appended_to_printed_p95_ms: pct(follow, 95),
    printed_to_appended_p95_ms: pct(runner, 95),
    load: [load0, load()],
  };
}

export function printMonitor(m: Awaited<ReturnType<typeof monitorLatency>>): Awaited<ReturnType<typeof monitorLatency>> {
  console.log(`4. Monitor latency: a real run's agent prints ${m.samples} marks → \`wt-loop monitor\` prints them (load ${m.load.join(" → ")})`);
  console.log(
    `   agent printed → shown: median ${ms(m.median_ms)}   p95 ${ms(m.p95_ms)}   max ${ms(m.max_ms)}   target p95 < ${TARGET_MS} ms  ${judge("monitor p95", m.p95_ms < TARGET_MS, `p95 ${ms(m.p95_ms)}, target < ${TARGET_MS} ms`)}`,
  );
  console.log(
    `   of which: agent printed → event appended p95 ${ms(m.printed_to_appended_p95_ms)}   event appended → shown p95 ${ms(m.appended_to_printed_p95_ms)}`,
  );
  return m;
}

if (import.meta.main) await runAlone(async () => printMonitor(await monitorLatency()));
