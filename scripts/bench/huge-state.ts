/**
 * A state that holds more than expected: a 20 MB task, a 100 KB reason and story title (and a 50 MB
 * task for the MCP server). Each command's time on it, the median of BENCH_HUGE_RUNS runs; every one
 * should answer within a second, and its human output stay small. Runs alone:
 * `bun scripts/bench/huge-state.ts` (it builds the binary first).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, makeRepo, median, ms, runAlone, writeStatusState } from "./shared.ts";

const RUNS = Number(process.env.BENCH_HUGE_RUNS ?? 5);
const COMMANDS = [["status"], ["status", "--json"], ["log"], ["history"], ["list"]];

export async function hugeState() {
  const repo = makeRepo("huge-state", 10, 1);
  const reason = "R".repeat(100_000);
  const huge = (task: string) => writeStatusState(repo, 30, { task, reason, error: reason, status: "stuck" });
  huge(`${"T".repeat(20_000_000)}\nsecond line`);
  const out: Record<string, { ms: number; bytes: number }> = {};
  for (const argv of COMMANDS) {
    const xs: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = Bun.spawnSync([BIN, ...argv], { cwd: repo, stdout: "pipe", stderr: "pipe" });
      xs.push(performance.now() - t0);
      bytes = r.stdout.length;
    }
    out[argv.join(" ")] = { ms: median(xs), bytes };
  }
  huge("T".repeat(50_000_000));
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: BIN, args: ["mcp"], cwd: repo, stderr: "ignore" }));
  const xs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = (await client.callTool({ name: "loop_status", arguments: {} })) as { content: { text: string }[] };
    xs.push(performance.now() - t0);
    bytes = r.content[0]!.text.length;
  }
  await client.close();
  out["mcp loop_status (50 MB task)"] = { ms: median(xs), bytes };
  return out;
}

export function printHuge(r: Awaited<ReturnType<typeof hugeState>>) {
  console.log(`A huge state (20 MB task, 100 KB reason; median of ${RUNS} runs)`);
  for (const [k, v] of Object.entries(r))
    console.log(`   ${k.padEnd(32)} ${ms(v.ms).padStart(10)}   ${String(v.bytes).padStart(9)} bytes out   ${v.ms < 1000 ? "within 1 s" : "OVER 1 s"}`);
  return r;
}

if (import.meta.main) await runAlone(async () => printHuge(await hugeState()));
