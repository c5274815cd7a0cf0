/**
 * One measurement of the loop screen's model, in a process of its own so its RSS is its own (see
 * screen.ts). Prints one JSON line.
 *
 *   bun screen-probe.ts keys  <events.jsonl>   replay a log, then key → frame times and the peak RSS
 *   bun screen-probe.ts keys-run <events.jsonl> the same as `run` gets it: each event appended to a new log
 *                                              (record/event-log.ts) and handed to a fed model with its range
 *   bun screen-probe.ts burst <events.jsonl>   events appended at BURST_RATE/s for BURST_S s, frames at 30/s
 *   bun screen-probe.ts floor <events.jsonl>   the floor: read and JSON.parse every line of the log, nothing kept
 *   bun screen-probe.ts bare                   the floor of RSS: this process with the model loaded, nothing read
 */
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EventLog } from "../../src/record/event-log.ts";
import { LoopModel } from "../../src/screen/loop-model.ts";
import { LogTail } from "../../src/screen/log-tail.ts";

const [mode, log] = process.argv.slice(2);
const rss = () => Math.round(process.resourceUsage().maxRSS / 1024); // KB → MB
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

if (mode === "bare") {
  new LoopModel({ mode: "monitor" }).frame(Date.now());
  console.log(JSON.stringify({ peak_rss_mb: rss() }));
} else if (mode === "floor") {
  const t0 = performance.now();
  let n = 0;
  for (const line of readFileSync(log!, "utf8").split("\n")) if (line) n += JSON.parse(line) ? 1 : 0;
  console.log(JSON.stringify({ ms: performance.now() - t0, events: n, peak_rss_mb: rss() }));
} else if (mode === "keys" || mode === "keys-run") {
  const run = mode === "keys-run";
  const written = join(dirname(log!), "run", ".claude", "loop-events.jsonl");
  if (run) mkdirSync(dirname(written), { recursive: true });
  const m = run ? new LoopModel({ mode: "run", events: written, fed: true }) : new LoopModel({ mode: "monitor", events: log });
  m.resize(120, 40);
  const t0 = performance.now();
  m.frame(Date.now());
  if (run) {
    // run: the runner's store appends each event and hands it over with its range (record/store.ts emit).
    const out = new EventLog(written);
    const source = new LogTail(log!);
    for (let lines = source.read(1 << 20); lines.length; lines = source.read(1 << 20))
      for (const l of lines) {
        const { ts: _, ...event } = JSON.parse(l.text);
        m.event(event);
        m.logged(event, out.append(event));
      }
    out.close();
  } else while (m.record.sync()); // the whole log: a frame reads a bounded slice of it
  const replay = performance.now() - t0;
  // The big story, then keys a person presses while reading it.
  m.key("down");
  const keys = ["end", "pageup", "pageup", "home", "pagedown", "wheeldown", "wheelup", "tab", "shift-tab", "up", "down", "end", "pageup"];
  const times: number[] = [];
  for (let round = 0; round < 20; round++)
    for (const k of keys) {
      const t = performance.now();
      m.key(k);
      m.frame(Date.now());
      times.push(performance.now() - t);
    }
  console.log(
    JSON.stringify({ replay_ms: replay, key_frame_p95_ms: pct(times, 95), key_frame_max_ms: Math.max(...times), keys: times.length, peak_rss_mb: rss() }),
  );
} else if (mode === "burst") {
  const rate = Number(process.env.BURST_RATE ?? 10_000);
  const seconds = Number(process.env.BURST_S ?? 5);
  const m = new LoopModel({ mode: "run", events: log });
  m.resize(120, 40);
  const line = (i: number) =>
    JSON.stringify({
      ts: new Date().toISOString(),
      type: "StoryEvent",
      story_id: "1",
      event: { type: i % 4 ? "Message" : "ToolUse", text: `burst message ${i}\nwith a second line`, name: "Bash", summary: `echo ${i}` },
    }) + "\n";
  let written = 0;
  const frames: number[] = [];
  let behind = 0;
  const start = performance.now();
  let nextFrame = start;
  // The runner's side and the screen's side in one thread, as in `run`: events as they come, a frame every 33 ms.
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    if (due > written) {
      let chunk = "";
      for (; written < due; written++) chunk += line(written);
      appendFileSync(log!, chunk);
    }
    if (performance.now() >= nextFrame) {
      const t = performance.now();
      m.frame(Date.now());
      frames.push(performance.now() - t);
      const shown = m.record.stories[0]?.agent.blocks.length ?? 0;
      behind = Math.max(behind, written - shown);
      nextFrame += 1000 / 30;
    } else await Bun.sleep(1);
  }
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.resourceUsage();
  console.log(
    JSON.stringify({
      events: written,
      rate: written / elapsed,
      frames: frames.length,
      fps: frames.length / elapsed,
      frame_p95_ms: pct(frames, 95),
      frame_max_ms: Math.max(...frames),
      max_events_behind: behind,
      cpu_pct: ((cpu.userCPUTime + cpu.systemCPUTime) / 1000 / (elapsed * 1000)) * 100,
      peak_rss_mb: rss(),
    }),
  );
} else throw new Error(`screen-probe: unknown mode ${mode}`);
