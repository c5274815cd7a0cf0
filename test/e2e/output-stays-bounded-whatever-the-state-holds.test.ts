// A state file can hold more than anyone expects: a 20 MB task pasted in, a 100 KB failure reason, a
// story title that is a whole document. Human output shows each field bounded (its first line, cut,
// saying how much more there is and that --json has all); --json keeps every value whole; the MCP
// server's answers are capped, with a flag saying what was cut and where the rest is.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { baseEnv, CLI, wtLoop } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { runLoop } from "../helpers/loop.ts";
import { makeRepo } from "../helpers/repo.ts";

const TASK = `${"T".repeat(20_000_000)}\nand a second line`;
const REASON = "R".repeat(100_000);
const TITLE = "S".repeat(1_000_000);
const SAYS = "more characters; --json has all)";
let repo: string;
let client: Client;

beforeAll(async () => {
  repo = makeRepo();
  const first = await runLoop(repo, [{ promise: "FAILED: not yet" }], ["Write it", "--done", "manual", "--max-retries", "1", "--on-complete", "keep"]);
  if (first.code !== 2) throw new Error(first.stderr);
  const s = readState(repo);
  Object.assign(s, { task: TASK, reason: REASON, error: REASON });
  s.iterations[0] = { ...s.iterations[0], reason: REASON, story_title: TITLE };
  s.planned_stories = [{ id: "1", title: TITLE }];
  writeFileSync(join(repo, ".claude/loop-state.json"), JSON.stringify(s));
  client = new Client({ name: "wt-loop-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd: repo, env: baseEnv(), stderr: "pipe" }));
}, 120_000);
afterAll(async () => {
  await client?.close();
});

test.each([{ cmd: ["status"] }, { cmd: ["log"] }, { cmd: ["history"] }, { cmd: ["list"] }, { cmd: ["history", "--runs"] }])(
  "`wt-loop $cmd` prints each field bounded",
  async ({ cmd }) => {
    const r = await wtLoop([...cmd], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(10_000);
    expect(r.stderr.length).toBeLessThan(10_000);
    if (cmd[0] !== "list" && cmd[1] !== "--runs") expect(r.stdout).toContain(SAYS);
  },
  60_000,
);

test("`status` says how much of the task and the reason it left out", async () => {
  const r = await wtLoop(["status"], { cwd: repo });
  expect(r.stdout.length).toBeLessThan(10_000); // (before the matches below, whose failure would print it whole)
  expect(r.stdout).toMatch(/Task: +T+… \([\d,]+ more characters; --json has all\)/);
  expect(r.stdout).toMatch(/Reason: R+… \([\d,]+ more characters; --json has all\)/);
});

test("--json keeps every value whole", async () => {
  const status = JSON.parse((await wtLoop(["status", "--json"], { cwd: repo })).stdout);
  expect([status.task === TASK, status.reason === REASON, status.iterations[0].story_title === TITLE]).toEqual([true, true, true]);
  const history = JSON.parse((await wtLoop(["history", "--json"], { cwd: repo })).stdout);
  expect(history.iterations[0].reason === REASON).toBe(true);
  const log = JSON.parse((await wtLoop(["log", "--json"], { cwd: repo })).stdout);
  expect([log.run.task === TASK, log.iterations[0].reason === REASON]).toEqual([true, true]);
}, 60_000);

test("MCP answers are capped at 256 KB, with a flag naming what was cut and where the rest is", async () => {
  for (const tool of ["loop_status", "loop_history", "list_loops"]) {
    const r = (await client.callTool({ name: tool, arguments: {} })) as any;
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text.length).toBeLessThan(256 * 1024);
    expect(JSON.stringify(r.structuredContent).length).toBeLessThan(256 * 1024);
    if (tool === "list_loops") continue; // its summary holds no task; the reason is capped with the rest
    expect(r.structuredContent.capped).toMatchObject({
      fields: expect.arrayContaining([expect.stringMatching(/reason$/)]),
      rest: expect.stringContaining("--json"),
    });
  }
  const status = (await client.callTool({ name: "loop_status", arguments: {} })) as any;
  expect(status.structuredContent.capped.fields).toEqual(expect.arrayContaining(["state.task", "state.reason"]));
  expect(status.structuredContent.state.task.startsWith("TTTT")).toBe(true);
}, 60_000);
