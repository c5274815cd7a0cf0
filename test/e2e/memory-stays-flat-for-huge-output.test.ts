// An agent may print a single line of 50 MB (a huge message): the runner scans it without holding it,
// so its peak memory stays under 100 MB, while the iteration log and the event log keep all of it.
import { expect, test } from "bun:test";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeAgent, spawnWtLoop, wtLoop } from "../helpers/cli.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { readState } from "../helpers/fixtures.ts";

function tail(path: string): string {
  const fd = openSync(path, "r");
  const buf = Buffer.alloc(64 * 1024);
  const got = readSync(fd, buf, 0, buf.length, Math.max(0, statSync(path).size - buf.length));
  closeSync(fd);
  return buf.subarray(0, got).toString("latin1");
}
const peakKb = (pid: number) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);

test("a 50 MB single-line message: the runner's peak RSS stays under 100 MB, the logs keep the whole message", async () => {
  const repo = makeRepo({ "tasks.md": "## 1. One\n- [ ] 1.1 a\n" });
  const agent = fakeAgent([{ hugeMessageMB: 50, write: { [join(repo, "after-the-huge-one.txt")]: "x" }, hangSec: 300 }], tempDir("fake-agent-"));
  const proc = spawnWtLoop(["start", "--terminal", "inline", "--on-complete", "keep"], { cwd: repo, env: agent.env, stdout: "ignore", stderr: "ignore" });
  const events = join(repo, ".claude/loop-events.jsonl");
  // The tool call after the huge message is logged only once the huge one has been read, logged and shown.
  const logged = () => existsSync(events) && statSync(events).size > 50 << 20 && tail(events).includes("after-the-huge-one.txt");
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, peakKb(proc.pid) || 0);
  };
  await waitFor(
    "the message after the huge one to be logged",
    () => {
      sample();
      return logged();
    },
    120_000,
    { whileRunning: proc },
  );
  sample();
  await wtLoop(["stop"], { cwd: repo });
  await proc.exited;
  console.log(`peak RSS of the runner: ${(peak / 1024).toFixed(1)} MB`);
  expect(peak).toBeLessThan(100 * 1024);
  const line = readFileSync(events, "utf8")
    .split("\n")
    .find((l) => l.length > 1_000_000)!;
  const text: string = JSON.parse(line).event.text;
  expect(text.startsWith('start:lorem ipsum "quoted" \\ dolor é ')).toBe(true);
  expect(text.endsWith(":end")).toBe(true);
  expect(text.length).toBeGreaterThan(50 * 1024 * 1024 * 0.9);
  const logFile = readState(repo).iterations[0].log_file;
  expect(statSync(logFile).size).toBeGreaterThan(50 * 1024 * 1024);
}, 120_000);
