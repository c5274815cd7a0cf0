/**
 * `--sandbox`'s cost per agent run: a trivial agent (`sh -c 'echo ok'`) started and ended through
 * proc/spawn.ts as an agent run is, plain, in the sandbox with the network open, and in the sandbox
 * with the network filtered to one host (the nested namespaces and the forward's listener). Measured
 * round-robin (machine noise hits each alike), the median of BENCH_SANDBOX_RUNS runs each; plus what
 * opening the sandbox costs once per loop. Run: `bun scripts/bench/sandbox.ts` (Linux, with bubblewrap,
 * socat and ripgrep installed).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSandbox, type SandboxRules } from "../../src/proc/sandbox.ts";
import { sandboxProblem } from "../../src/proc/sandbox-tools.ts";
import { worktreePlace } from "../../src/run/sandbox-git.ts";
import { start, type Wrapper } from "../../src/proc/spawn.ts";

const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 30);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const problem = sandboxProblem();
if (problem) {
  console.error(problem);
  process.exit(1);
}
const wt = mkdtempSync(join(tmpdir(), "bench-sandbox-"));
// A real repository: each run's mounts include its git dir's (read per command) and the sweep after it.
Bun.spawnSync(["git", "init", "-q", wt]);
const api = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
const rules = (network: SandboxRules["network"]): SandboxRules => ({
  write: [],
  readOnly: [],
  denyRead: [],
  network,
  allow: [{ host: "127.0.0.1", port: api.port }],
  env: [],
  place: worktreePlace,
});

async function timed<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await f();
  return [performance.now() - t0, v];
}

/** One agent run: from the spawn to its exit, its output read. */
async function run(sandbox?: Wrapper): Promise<number> {
  const [t, out] = await timed(async () => {
    const lines: string[] = [];
    const p = start(["sh", "-c", "echo ok"], { cwd: wt, sandbox, onStdout: (l) => lines.push(l) });
    await p.done;
    return lines.join("");
  });
  if (out !== "ok") throw new Error(`the agent printed '${out}'`);
  return t;
}

const opens: Record<string, number[]> = { open: [], filtered: [] };
const sandboxes = { open: await openSandbox(rules("open"), "bench"), filtered: await openSandbox(rules("filtered"), "bench") };
for (let i = 0; i < 5; i++)
  for (const n of ["open", "filtered"] as const) {
    const [t, s] = await timed(() => openSandbox(rules(n), "bench"));
    opens[n]!.push(t);
    await s.close();
  }
const xs: Record<string, number[]> = { plain: [], open: [], filtered: [] };
for (let i = 0; i < 3; i++) await Promise.all([run(), run(sandboxes.open), run(sandboxes.filtered)]); // warm up
for (let i = 0; i < RUNS; i++) {
  xs.plain!.push(await run());
  xs.open!.push(await run(sandboxes.open));
  xs.filtered!.push(await run(sandboxes.filtered));
}
const ms = (v: number) => `${v.toFixed(1)} ms`;
console.log(`--sandbox: start-up cost per agent run (median of ${RUNS} runs each, interleaved)`);
console.log(`   ${"agent run, no sandbox".padEnd(44)} ${ms(median(xs.plain!)).padStart(9)}`);
console.log(`   ${"agent run, --sandbox-network open".padEnd(44)} ${ms(median(xs.open!)).padStart(9)}   +${ms(median(xs.open!) - median(xs.plain!))}`);
console.log(
  `   ${"agent run, --sandbox (filtered, 1 host)".padEnd(44)} ${ms(median(xs.filtered!)).padStart(9)}   +${ms(median(xs.filtered!) - median(xs.plain!))}`,
);
console.log(`   ${"opening the sandbox, once per loop: open".padEnd(44)} ${ms(median(opens.open!)).padStart(9)}`);
console.log(`   ${"opening the sandbox, once per loop: filtered".padEnd(44)} ${ms(median(opens.filtered!)).padStart(9)}`);
await sandboxes.open.close();
await sandboxes.filtered.close();
api.stop(true);
rmSync(wt, { recursive: true, force: true });
