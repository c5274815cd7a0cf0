// A client that sends a malformed JSON-RPC line to `wt-loop mcp` gets an error response at once,
// naming what was wrong — never silence that leaves it waiting until its own timeout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { baseEnv, CLI, collect } from "../helpers/cli.ts";
import { makeRepo } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";

let server: Bun.Subprocess<"pipe", "pipe", "pipe">;
let out: ReturnType<typeof collect>;

beforeAll(() => {
  server = Bun.spawn([process.execPath, CLI, "mcp"], { cwd: makeRepo(), env: baseEnv(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  out = collect(server.stdout);
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
});
afterAll(async () => {
  server.stdin.end();
  await server.exited;
});

function send(message: unknown): void {
  server.stdin.write((typeof message === "string" ? message : JSON.stringify(message)) + "\n");
  server.stdin.flush();
}
const replies = () =>
  out
    .text()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const replyTo = (id: unknown) => waitFor(`a reply to ${JSON.stringify(id)}`, () => replies().find((r) => r.id === id && (r.error || r.result)), 20_000);

test("params that are a string: an invalid-request error for that id, naming params", async () => {
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: "string" });
  const r = await replyTo(2);
  expect(r.error.code).toBe(-32600);
  expect(r.error.message).toContain("params");
  expect(r.error.message).toContain("string");
});

test("a line that is not JSON: a parse error with a null id", async () => {
  send("not json at all");
  const r = await replyTo(null);
  expect(r.error.code).toBe(-32700);
});

test("a request without a method: an invalid-request error naming the method", async () => {
  send({ jsonrpc: "2.0", id: "m", params: {} });
  const r = await replyTo("m");
  expect(r.error.code).toBe(-32600);
  expect(r.error.message).toContain("method");
});

test("tools/call without params: invalid params, not an internal error", async () => {
  send({ jsonrpc: "2.0", id: 5, method: "tools/call" });
  const r = await replyTo(5);
  expect(r.error.code).toBe(-32602);
});

test("tools/call without a tool name: invalid params naming the name, not an internal error", async () => {
  send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { arguments: {} } });
  const r = await replyTo(7);
  expect(r.error.code).toBe(-32602);
  expect(r.error.message).toContain("params.name");
});

test("after malformed lines the server still answers good ones", async () => {
  send({ jsonrpc: "2.0", id: 6, method: "tools/list" });
  const r = await replyTo(6);
  expect(r.result.tools.length).toBe(9); // five to read and stop loops, four to steer them (pause, resume, note, iteration limit)
});
