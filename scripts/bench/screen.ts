/**
 * The loop screen's model: a story with 10 MB of messages (replay, key → frame, RSS) and a burst of
 * events drawn at 30 frames a second. Each figure beside its floor, measured in the same run: RSS beside
 * a process with the model loaded and nothing read, the replay beside reading and parsing the log.
 * Each measurement runs in its own process (screen-probe.ts), so its RSS is its own.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { judge, load, median, ms, ROOT, RUNS, runAlone, work } from "./shared.ts";

const PROBE = join(ROOT, "scripts/bench/screen-probe.ts");
const TOKENS = { input: 100, output: 50, cache_read: 0, cache_creation: 0 };

/** A run's event log: three stories, the second with `mb` MB of messages (1 KB each, 12 lines) and a tool call after every fourth. */
export function bigStoryLog(mb: number): string {
  const file = join(work, "screen-events.jsonl");
  const ts = new Date().toISOString();
  const out: string[] = [];
  const ev = (e: object) => out.push(JSON.stringify({ ts, ...e }));
  ev({
    type: "LoopStarted",
    worktree: "bench",
    change: null,
    tasks_file: null,
    done_criteria: "tasks",
    checkpoint: "branch",
    max_iterations: 30,
    max_retries: 3,
    verify: null,
    stories: [1, 2, 3].map((i) => ({ id: String(i), title: `Story ${i}`, tasks: 1, done: 0 })),
  });
  const message = (i: number) => Array.from({ length: 12 }, (_, l) => `message ${i} line ${l}: ${"lorem ipsum dolor sit amet ".repeat(3)}`).join("\n");
  let iteration = 0;
  for (const [id, bytes] of [
    ["1", 50_000],
    ["2", mb * (1 << 20)],
    ["3", 50_000],
  ] as const) {
    ev({
      type: "StoryProgress",
      story_id: id,
      title: `Story ${id}`,
      index: Number(id),
      total: 3,
      completed: Number(id) - 1,
      iteration: ++iteration,
      max_iterations: 30,
      attempt: 1,
      max_retries: 3,
      worktree: "bench",
    });
    for (let i = 0, size = 0; size < bytes; i++) {
      const text = message(i);
      size += text.length;
      ev({ type: "StoryEvent", story_id: id, event: { type: "Message", text } });
      if (i % 4 === 0) ev({ type: "StoryEvent", story_id: id, event: { type: "ToolUse", name: "Bash", summary: `bun test ${i}` } });
    }
    if (id !== "3")
      ev({
        type: "IterationEnd",
        story_id: id,
        iteration,
        outcome: "complete",
        reason: null,
        duration_ms: 1000,
        turns: 3,
        tokens: TOKENS,
        cost_usd: 0.1,
        commits: [],
        files: [],
      });
  }
  writeFileSync(file, out.join("\n") + "\n");
  return file;
}

function probe(args: string[], env: Record<string, string> = {}): Record<string, number> {
  const r = Bun.spawnSync(["bun", PROBE, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`screen-probe ${args.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString().trim().split("\n").at(-1)!);
}

const med = (rs: Record<string, number>[], k: string) => median(rs.map((r) => r[k]!));

export function screenModel() {
  const log = bigStoryLog(10);
  const runs = Math.max(1, RUNS);
  const keys = Array.from({ length: runs }, () => probe(["keys", log]));
  const runKeys = Array.from({ length: runs }, () => probe(["keys-run", log]));
  const floor = Array.from({ length: runs }, () => probe(["floor", log]));
  const bare = Array.from({ length: runs }, () => probe(["bare"]));
  const burstLog = join(work, "screen-burst.jsonl");
  const bursts = Array.from({ length: runs }, () => {
    writeFileSync(burstLog, "");
    return probe(["burst", burstLog]);
  });
  return {
    story_mb: 10,
    replay_ms: med(keys, "replay_ms"),
    replay_floor_ms: med(floor, "ms"),
    key_frame_p95_ms: med(keys, "key_frame_p95_ms"),
    key_frame_max_ms: med(keys, "key_frame_max_ms"),
    peak_rss_mb: med(keys, "peak_rss_mb"),
    run_replay_ms: med(runKeys, "replay_ms"),
    run_key_frame_p95_ms: med(runKeys, "key_frame_p95_ms"),
    run_peak_rss_mb: med(runKeys, "peak_rss_mb"),
    bare_rss_mb: med(bare, "peak_rss_mb"),
    floor_rss_mb: med(floor, "peak_rss_mb"),
    burst_rate: med(bursts, "rate"),
    burst_fps: med(bursts, "fps"),
    burst_frame_p95_ms: med(bursts, "frame_p95_ms"),
    burst_max_events_behind: med(bursts, "max_events_behind"),
    burst_cpu_pct: med(bursts, "cpu_pct"),
  };
}

export function printScreen(s: ReturnType<typeof screenModel>): ReturnType<typeof screenModel> {
  console.log(`5. Loop screen model: a story of ${s.story_mb} MB of messages (median of ${RUNS} processes, load ${load()})`);
  console.log(`   replay of the log   ${ms(s.replay_ms)}   floor (read + JSON.parse every line) ${ms(s.replay_floor_ms)}`);
  console.log(
    `   key → frame p95     ${ms(s.key_frame_p95_ms)}   max ${ms(s.key_frame_max_ms)}   target p95 ≤ 50 ms  ${judge("screen model key → frame p95", s.key_frame_p95_ms <= 50, `${ms(s.key_frame_p95_ms)}, target ≤ 50 ms`)}`,
  );
  console.log(
    `   peak RSS            ${s.peak_rss_mb} MB   floor (model loaded, nothing read) ${s.bare_rss_mb} MB   (parsing the whole log at once: ${s.floor_rss_mb} MB)   target < 150 MB  ${judge("screen model peak RSS", s.peak_rss_mb < 150, `${s.peak_rss_mb} MB, target < 150 MB`)}`,
  );
  console.log(
    `   run's screen        fed by its store (each event appended, handed over with its range): peak RSS ${s.run_peak_rss_mb} MB, key → frame p95 ${ms(s.run_key_frame_p95_ms)}, appended in ${ms(s.run_replay_ms)}   target < 150 MB  ${judge("run's screen peak RSS", s.run_peak_rss_mb < 150, `${s.run_peak_rss_mb} MB, target < 150 MB`)}`,
  );
  console.log(
    `   burst               ${Math.round(s.burst_rate)} events/s fed, ${s.burst_fps.toFixed(1)} frames/s, frame p95 ${ms(s.burst_frame_p95_ms)}, ` +
      `at most ${s.burst_max_events_behind} events behind after a frame, CPU ${s.burst_cpu_pct.toFixed(0)} %   target 10,000/s at ≤ 30 fps without falling behind  ${judge("screen model burst", s.burst_rate >= 9_000 && s.burst_max_events_behind === 0, `${Math.round(s.burst_rate)}/s fed, ${s.burst_max_events_behind} behind`)}`,
  );
  return s;
}

if (import.meta.main) await runAlone(() => printScreen(screenModel()));
