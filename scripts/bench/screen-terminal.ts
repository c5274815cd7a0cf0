/**
 * The loop screen in a real terminal (a private tmux server), with the compiled binary: the time from
 * starting `wt-loop run` to its first frame on screen, beside the time `wt-loop --version` takes to
 * show in the same pane the same way (the floor: the shell, the binary's start, tmux, the polling);
 * and the CPU `run` uses while the agent works silently and only the clock ticks, beside the same with
 * `--plain` (the line stream, which draws nothing while nothing happens), and the CPU of `monitor` (the
 * screen and `--plain`) following such a loop.
 *
 * BENCH_BASELINE=<binary>: the same figures for that build too, round-robin with this one in the same
 * run (each figure's runs alternate between the two), so a change is judged against its baseline at the
 * same load.
 *
 * BENCH_SCREEN_FIRST_ONLY=1: only the first frame, the stories and the floor (BENCH_RUNS rounds, seconds each, no idle
 * windows): for iterating on the start-up.
 */
import { readFileSync } from "node:fs";
import { BIN, judge, load, makeRepo, median, ms, RUNS, runAlone } from "./shared.ts";

const BASELINE = process.env.BENCH_BASELINE;

const FIRST_ONLY = process.env.BENCH_SCREEN_FIRST_ONLY === "1";
const SOCK = `wtl-bench-${process.pid}`;
const IDLE_S = 20;
/** From the first frame: the seconds the start-up's work (the first iteration's git calls, the JIT) takes on a loaded machine. */
const IDLE_WARM_MS = 5000;
/**
 * The second window, judged: from the second minute of every loop on, when the screen's clock shows whole minutes (it
 * draws once a minute, docs/loop-screen.md) and the JIT has compiled what a second runs. An agent's silent stretch
 * lasts minutes; the first window (its first half minute) is printed beside it.
 */
const STEADY_FROM_MS = 70_000;

function tmux(...args: string[]): string {
  const r = Bun.spawnSync(["tmux", "-L", SOCK, "-f", "/dev/null", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, TMUX: undefined } });
  if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString();
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
let repos = 0;

/**
 * Starts `cmd` (argv, run through sh like a terminal would) in a new pane of a fresh repository (or of
 * `repo`); ms until `shown` matches, ms until `then` matches (when given: a later sight, polled on after
 * `shown`), the CPU of its main thread when `shown` matched (a command that stays), and the pane.
 */
function startUntil(
  argv: string[],
  shown: RegExp,
  stays = true,
  then?: RegExp,
  inRepo?: string,
): { ms: number; thenMs: number; cpuMs: number; pane: string; repo: string } {
  const repo = inRepo ?? makeRepo(`screen-term-${repos++}`, 10, 3);
  // exec: the pane's process is wt-loop itself, whose CPU is then read by the pane's pid; a command
  // that exits at once is followed by a sleep, so its output stays to be seen.
  const line = `${stays ? "exec " : ""}env TERM=xterm-256color ${argv.map(q).join(" ")}${stays ? "" : "; sleep 30"}`;
  const t0 = performance.now();
  const [pane, panePid] = tmux("new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", repo, "sh", "-c", line).trim().split(" ") as [string, string];
  while (!shown.test(tmux("capture-pane", "-p", "-t", pane))) {
    if (performance.now() - t0 > 20_000) throw new Error(`${argv.join(" ")} showed nothing like ${shown} in 20 s:\n${tmux("capture-pane", "-p", "-t", pane)}`);
    Bun.sleepSync(2);
  }
  const first = performance.now() - t0;
  const cpu = stays ? threadCpuMs(panePid) : Number.NaN;
  while (then && !then.test(tmux("capture-pane", "-p", "-t", pane))) {
    if (performance.now() - t0 > 20_000) throw new Error(`${argv.join(" ")} showed nothing like ${then} in 20 s:\n${tmux("capture-pane", "-p", "-t", pane)}`);
    Bun.sleepSync(2);
  }
  return { ms: first, thenMs: performance.now() - t0, cpuMs: cpu, pane, repo };
}

/**
 * CPU time (ms) the main thread of the pane's process has run so far, to the nanosecond (/proc/PID/schedstat's
 * first field): read as a frame is seen, what the start-up cost on the one thread that draws, which a load that
 * comes and goes changes less than the wall time. The process is the pane's: `exec` keeps the shell's pid, read
 * before the polling so that the reading follows the sight at once.
 */
function threadCpuMs(pid: string): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/** CPU time (user + system, ms) of the pane's process so far: /proc/PID/stat fields 14 and 15, in clock ticks. */
function cpuMs(pane: string): number {
  const pid = tmux("display", "-p", "-t", pane, "#{pane_pid}").trim();
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU % of each pane's process over the same IDLE_S seconds, twice: once the start-up's work is done (the first
 * window), and from STEADY_FROM_MS on (the second).
 */
async function idleCpu(panes: { pane: string; running: RegExp }[]): Promise<{ first: number[]; steady: number[] }> {
  const t0 = performance.now();
  const window = async () => {
    const before = panes.map((p) => cpuMs(p.pane));
    await Bun.sleep(IDLE_S * 1000);
    return panes.map((p, i) => ((cpuMs(p.pane) - before[i]!) / (IDLE_S * 1000)) * 100);
  };
  await Bun.sleep(IDLE_WARM_MS); // the start-up's work done: the agent sleeps, the clock ticks
  const first = await window();
  await Bun.sleep(Math.max(0, STEADY_FROM_MS - (performance.now() - t0)));
  const steady = await window();
  // A loop that ended (or never ran its agent) costs nothing while "idle": that is no figure.
  for (const p of panes) {
    const screen = tmux("capture-pane", "-p", "-t", p.pane);
    if (!p.running.test(screen)) throw new Error(`the loop in ${p.pane} is not running its agent after the idle time:\n${screen}`);
  }
  return { first, steady };
}

/** The figures of one build. */
function figures() {
  return {
    first: [] as number[],
    firstCpu: [] as number[],
    stories: [] as number[],
    floor: [] as number[],
    idle: [] as number[],
    idlePlain: [] as number[],
    idleFirst: [] as number[],
    monitorIdleFirst: [] as number[],
    plainFirst: [] as number[],
    monitorIdle: [] as number[],
    monitorIdlePlain: [] as number[],
  };
}

/** One round of every figure for the binary `bin`, into `f`. */
async function round(bin: string, f: ReturnType<typeof figures>): Promise<void> {
  const loop = (plain: boolean) => [bin, "run", "--agent", "command", "--agent-cmd", "sleep 300", "--on-complete", "keep", ...(plain ? ["--plain"] : [])];
  f.floor.push(startUntil([bin, "--version"], /\d+\.\d+\.\d+/, false).ms);
  // The first frame: the loop screen as `run` opens it (its header and the story list's title),
  // which it draws while the loop is still prepared; then the frame with the plan's stories.
  const run = startUntil(loop(false), /Stories/, true, /Story 1/);
  f.first.push(run.ms);
  f.firstCpu.push(run.cpuMs);
  f.stories.push(run.thenMs);
  const plain = startUntil(loop(true), /iteration 1\//);
  f.plainFirst.push(plain.ms);
  if (FIRST_ONLY) {
    for (const p of [run.pane, plain.pane]) tmux("send-keys", "-t", p, "q");
    await Bun.sleep(1500); // stopped gracefully, before the next build's round
    return;
  }
  // `monitor` following the plain run's loop (the same binary: a runner of another build is not taken for ours).
  const monitor = startUntil([bin, "monitor"], /Story 1/, true, undefined, plain.repo);
  const monitorPlain = startUntil([bin, "monitor", "--plain"], /1\. Story 1/, true, undefined, plain.repo);
  // All four measured over the same seconds: a load that comes and goes falls on each.
  const { first, steady } = await idleCpu([
    { pane: run.pane, running: /Story 1/ },
    { pane: plain.pane, running: /iteration 1\// },
    { pane: monitor.pane, running: /Story 1/ },
    { pane: monitorPlain.pane, running: /Story 1/ },
  ]);
  const [idle, idlePlain, mon, monPlain] = steady;
  f.idle.push(idle!);
  f.idlePlain.push(idlePlain!);
  f.monitorIdle.push(mon!);
  f.monitorIdlePlain.push(monPlain!);
  f.idleFirst.push(first[0]!);
  f.monitorIdleFirst.push(first[2]!);
  for (const p of [monitor.pane, monitorPlain.pane]) tmux("send-keys", "-t", p, "q");
  for (const p of [run.pane, plain.pane]) tmux("send-keys", "-t", p, "q");
  await Bun.sleep(1500); // stopped gracefully: the agent is ended by its loop
}

const summary = (f: ReturnType<typeof figures>) => ({
  first_frame_ms: median(f.first),
  first_frame_cpu_ms: median(f.firstCpu),
  stories_frame_ms: median(f.stories),
  version_floor_ms: median(f.floor),
  plain_first_line_ms: median(f.plainFirst),
  idle_cpu_pct: median(f.idle),
  idle_cpu_plain_pct: median(f.idlePlain),
  monitor_idle_cpu_pct: median(f.monitorIdle),
  monitor_idle_cpu_plain_pct: median(f.monitorIdlePlain),
  idle_cpu_first_pct: median(f.idleFirst),
  monitor_idle_cpu_first_pct: median(f.monitorIdleFirst),
});

export async function screenTerminal() {
  if (!Bun.which("tmux")) throw new Error("tmux is not installed: the loop screen's figures need a real terminal (apt-get install tmux)");
  tmux("new-session", "-d", "-x", "120", "-y", "40", "sleep 600");
  const load0 = load();
  try {
    const ours = figures();
    const base = figures();
    for (let i = 0; i < Math.max(1, RUNS); i++) {
      // Round-robin, so a load that comes and goes falls on both; a different build first each round.
      if (BASELINE && i % 2 === 0) await round(BASELINE, base);
      await round(BIN, ours);
      if (BASELINE && i % 2 === 1) await round(BASELINE, base);
    }
    return {
      ...summary(ours),
      baseline: BASELINE ? { binary: BASELINE, ...summary(base) } : null,
      first_only: FIRST_ONLY,
      idle_seconds: IDLE_S,
      steady_from_s: STEADY_FROM_MS / 1000,
      load: [load0, load()],
    };
  } finally {
    tmux("kill-server");
  }
}

export function printScreenTerminal(s: Awaited<ReturnType<typeof screenTerminal>>): Awaited<ReturnType<typeof screenTerminal>> {
  const at = `load ${s.load.join(" → ")}`;
  const b = s.baseline;
  const was = (f: (x: NonNullable<typeof b>) => string) => (b ? `   baseline ${f(b)}` : "");
  const pct = (n: number) => `${n.toFixed(2)} %`;
  const above = s.first_frame_ms - s.version_floor_ms;
  const storiesAbove = s.stories_frame_ms - s.version_floor_ms;
  console.log(`6. Loop screen in a terminal (tmux, compiled binary, median of ${RUNS}${b ? `, round-robin with the baseline ${b.binary}` : ""}, ${at})`);
  console.log(
    `   run → first frame   ${ms(s.first_frame_ms)}   floor (--version shown the same way: shell, binary start, tmux, polling) ${ms(s.version_floor_ms)}   run --plain → its first iteration line ${ms(s.plain_first_line_ms)}${was((x) => `${ms(x.first_frame_ms)}, floor ${ms(x.version_floor_ms)}, --plain ${ms(x.plain_first_line_ms)}`)}`,
  );
  console.log(
    `   first frame above the floor ${ms(above)}   target ≤ 200 ms  ${judge("run → first frame, above the floor", above <= 200, `${ms(above)} above the floor (${ms(s.first_frame_ms)} against ${ms(s.version_floor_ms)}), ${at}`)}${was((x) => ms(x.first_frame_ms - x.version_floor_ms))}`,
  );
  console.log(`   CPU of run's main thread when its first frame is seen ${ms(s.first_frame_cpu_ms)}${was((x) => ms(x.first_frame_cpu_ms))}`);
  console.log(
    `   run → the plan's stories on screen ${ms(s.stories_frame_ms)}, above the floor ${ms(storiesAbove)}   target ≤ 400 ms  ${judge("run → stories on screen, above the floor", storiesAbove <= 400, `${ms(storiesAbove)} above the floor (${ms(s.stories_frame_ms)}), ${at}`)}${was((x) => ms(x.stories_frame_ms - x.version_floor_ms))}`,
  );
  if (s.first_only) return s;
  console.log(
    `   idle CPU of run     ${pct(s.idle_cpu_pct)}   the line stream (--plain) ${pct(s.idle_cpu_plain_pct)}   over ${s.idle_seconds} s from the ${s.steady_from_s}th s (the first half minute: ${pct(s.idle_cpu_first_pct)})   target < 1 %  ${judge("runner idle CPU, loop screen", s.idle_cpu_pct < 1, `${pct(s.idle_cpu_pct)}, ${at}`)}${was((x) => `${pct(x.idle_cpu_pct)}, --plain ${pct(x.idle_cpu_plain_pct)}, first half minute ${pct(x.idle_cpu_first_pct)}`)}`,
  );
  console.log(
    `   idle CPU of monitor ${pct(s.monitor_idle_cpu_pct)}   --plain ${pct(s.monitor_idle_cpu_plain_pct)}   following that silent loop (the first half minute: ${pct(s.monitor_idle_cpu_first_pct)})   target < 1 %  ${judge("monitor idle CPU, loop screen", s.monitor_idle_cpu_pct < 1, `${pct(s.monitor_idle_cpu_pct)}, ${at}`)}${was((x) => `${pct(x.monitor_idle_cpu_pct)}, --plain ${pct(x.monitor_idle_cpu_plain_pct)}, first half minute ${pct(x.monitor_idle_cpu_first_pct)}`)}`,
  );
  return s;
}

if (import.meta.main) await runAlone(async () => printScreenTerminal(await screenTerminal()));
