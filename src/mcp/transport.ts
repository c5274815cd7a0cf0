/**
 * The MCP stdio transport, answering malformed lines. The SDK's own stdio transport drops a line that is
 * not a JSON-RPC message (params that are a string, no method, not JSON) with no reply, so the client
 * waits until its own timeout; JSON-RPC 2.0 says such a request gets an error response naming the fault.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, JSONRPCMessageSchema, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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

export class AnsweringStdioTransport extends StdioServerTransport {
  private readonly lines = new LineSplitter((line) => this.line(line.replace(/\r$/, "")));

  constructor() {
    super();
    // Replace the SDK's line reader with ours (start() subscribes whatever `_ondata` is): the same
    // framing, but a bad line is answered.
    (this as unknown as { _ondata: (chunk: Buffer) => void })._ondata = (chunk) => this.lines.push(chunk);
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
    if (checked.success) return this.onmessage?.(checked.data as JSONRPCMessage);
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

/**
 * The SDK validates a request's params inside its handlers and reports a mismatch as an internal error
 * (-32603) with a raw zod dump; it is the client's fault, so it becomes invalid params (-32602).
 */
export function paramsFaultsAreInvalidParams(server: McpServer): void {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (req: unknown, extra: unknown) => Promise<unknown>> })._requestHandlers;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (req, extra) => {
      try {
        return await handler(req, extra);
      } catch (e) {
        const issues = (e as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
        if (!Array.isArray(issues) || e instanceof McpError) throw e;
        const named = issues.map((i) => `${i.path.map(String).join(".") || "request"}: ${i.message}`).join("; ");
        throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${named}`);
      }
    });
  }
}
