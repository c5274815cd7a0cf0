/**
 * The MCP stdio transport, answering malformed lines. The SDK's own stdio transport drops a line that is
 * not a JSON-RPC message (params that are a string, no method, not JSON) with no reply, so the client
 * waits until its own timeout; JSON-RPC 2.0 says such a request gets an error response naming the fault.
 * And the SDK validates a request's params inside its handlers, reporting a mismatch as an internal error
 * (-32603) with a raw zod dump: it is the client's fault, so it is answered here as invalid params (-32602),
 * checked with the SDK's own public request schemas before the request reaches the server.
 *
 * It implements the SDK's public Transport interface on stdin/stdout itself: wrapping the SDK's stdio
 * transport and server meant replacing private members of theirs, which an upgrade may rename.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ClientRequestSchema, ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineSplitter } from "../proc/lines.ts";

type Id = string | number | null;

/** What is wrong with a parsed line as a JSON-RPC 2.0 message, or null when nothing we can name. */
export function messageFault(m: unknown): string | null {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return `a message must be a JSON object, not ${kind(m)}`;
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0", not ${JSON.stringify(o.jsonrpc) ?? "missing"}`;
  if ("id" in o && typeof o.id !== "string" && typeof o.id !== "number") return `"id" must be a string or a number, not ${kind(o.id)}`;
  const isResponse = "result" in o || "error" in o;
  if (!isResponse && typeof o.method !== "string") return `"method" must be a string, not ${"method" in o ? kind(o.method) : "missing"}`;
  if ("params" in o && (typeof o.params !== "object" || o.params === null || Array.isArray(o.params)))
    return `"params" must be an object, not ${kind(o.params)}`;
  return null;
}

const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : v === undefined ? "missing" : `a ${typeof v}`);

/** The schema of each request a client may send, by method (the SDK's public union). */
const REQUESTS = new Map(ClientRequestSchema.options.map((o) => [o.shape.method.value as string, o]));

export class AnsweringStdioTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly lines = new LineSplitter((line) => this.line(line.replace(/\r$/, "")));
  private readonly data = (chunk: Buffer) => this.lines.push(chunk);
  private readonly failed = (error: Error) => this.onerror?.(error);
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.data);
    this.input.on("error", this.failed);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.data);
    this.input.off("error", this.failed);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(JSON.stringify(message) + "\n")) resolve();
      else this.output.once("drain", () => resolve());
    });
  }

  private line(text: string): void {
    if (!text.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return this.reject(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(e as Error).message})`);
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed);
    if (checked.success) {
      const fault = paramsFault(checked.data);
      if (fault) return this.reject(fault.id, ErrorCode.InvalidParams, fault.message);
      return this.onmessage?.(checked.data);
    }
    const o = parsed as Record<string, unknown> | null;
    const id: Id = o && typeof o === "object" && (typeof o.id === "string" || typeof o.id === "number") ? o.id : null;
    // A notification (no id) gets no reply, as JSON-RPC says; anything else that could not be read does.
    if (id === null && o && typeof o === "object" && typeof o.method === "string" && !("id" in o)) return;
    const fault = messageFault(parsed) ?? "it is not a JSON-RPC 2.0 request, notification or response";
    this.reject(id, ErrorCode.InvalidRequest, `Invalid request: ${fault}`);
  }

  private reject(id: Id, code: number, message: string): void {
    // The SDK's message type has no null id, which JSON-RPC prescribes when the id could not be read.
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

/** A request of a method the SDK knows whose params its schema refuses: the invalid-params answer, naming each fault. */
function paramsFault(m: JSONRPCMessage): { id: string | number; message: string } | null {
  if (!("method" in m) || !("id" in m)) return null;
  const schema = REQUESTS.get(m.method);
  const checked = schema?.safeParse({ method: m.method, ...("params" in m ? { params: m.params } : {}) });
  if (!checked || checked.success) return null;
  const named = checked.error.issues.map((i) => `${i.path.map(String).join(".") || "request"}: ${i.message}`).join("; ");
  return { id: m.id, message: `Invalid params for ${m.method}: ${named}` };
}
