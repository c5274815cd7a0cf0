// A loop that ran for hours leaves an event log of hundreds of megabytes: `log`, `log --json` and the
// MCP log tool read it as a stream, so their peak memory stays far below the log's size.
import { beforeAll, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, CLI, collect } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

const LOG_MB = 200;
const BOUND_MB = 150;
let repo: string;

beforeAll(async () => {
  repo = makeRepo({ "tasks.md": "## 1. One\n- [ ] 1.1 a\n" });
  const r = await runLoop(repo, [COMPLETE({ messages: ["the message to repeat"] })], ["--on-complete", "keep"]);
  if (r.code !== 0) throw new Error(r.stderr);
  // The iteration's one message, repeated until the log is LOG_MB: as if the agent had talked for hours.
  const events = join(repo, ".claude/loop-events.jsonl");
  const lines = readFileSync(events, "utf8").split("\n").filter(Boolean);
  const at = lines.findIndex((l) => l.includes("the message to repeat"));
  const message = JSON.parse(lines[at]!);
  message.event.text = "talk ".repeat(400);
  const one = JSON.stringify(message) + "\n";
  const block = Buffer.from(one.repeat(Math.ceil((1 << 20) / one.length)));
  const fd = openSync(events, "w");
  writeSync(fd, lines.slice(0, at).join("\n") + "\n");
  for (let written = 0; written < LOG_MB << 20; written += block.length) writeSync(fd, block);
  writeSync(fd, lines.slice(at + 1).join("\n") + "\n");
  closeSync(fd);
}, 300_000);

/** The peak RSS of `wt-loop args` run to its end, its output thrown away (as /usr/bin/time reports it). */
async function peakMb(args: string[]): Promise<number> {
  const p = Bun.spawn(["/usr/bin/time", "-v", process.execPath, CLI, ...args], { cwd: repo, env: baseEnv(), stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  expect(code).toBe(0);
  return Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(err)![1]) / 1024;
}

test(`log over a ${LOG_MB} MB event log: peak memory under ${BOUND_MB} MB`, async () => {
  const peak = await peakMb(["log"]);
  console.log(`log: peak RSS ${peak.toFixed(1)} MB`);
  expect(peak).toBeLessThan(BOUND_MB);
}, 300_000);

test(`log --json over a ${LOG_MB} MB event log: peak memory under ${BOUND_MB} MB`, async () => {
  const peak = await peakMb(["log", "--json"]);
  console.log(`log --json: peak RSS ${peak.toFixed(1)} MB`);
  expect(peak).toBeLessThan(BOUND_MB);
}, 300_000);

test(`the MCP log tool over a ${LOG_MB} MB event log: peak memory under ${BOUND_MB} MB`, async () => {
  const server = Bun.spawn([process.execPath, CLI, "mcp"], { cwd: repo, env: baseEnv(), stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const out = collect(server.stdout);
  const send = (m: object) => (server.stdin.write(JSON.stringify(m) + "\n"), server.stdin.flush());
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "loop_log", arguments: { limit: 500 } } });
  await waitFor("the loop_log answer", () => out.text().includes('"id":2'), 240_000);
  const peak = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))![1]) / 1024;
  server.stdin.end();
  await server.exited;
  console.log(`mcp loop_log: peak RSS ${peak.toFixed(1)} MB`);
  expect(out.text()).toContain("talk talk");
  expect(peak).toBeLessThan(BOUND_MB);
}, 300_000);
