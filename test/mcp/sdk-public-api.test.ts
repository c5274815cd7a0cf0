// The MCP server is built on the SDK's public API only (issue 30.5): it wrapped the SDK's private handler map
// (`_requestHandlers`) and replaced its transport's private line reader (`_ondata`), which any upgrade may rename
// without notice — a server that then answers nothing, or answers a client's mistake as an internal error.
// What that code did is tested through a real `wt-loop mcp` in test/fleet/mcp-malformed-requests.test.ts.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const SRC = join(import.meta.dir, "../../src");
const files = [...readdirSync(join(SRC, "mcp")).map((f) => join(SRC, "mcp", f)), join(SRC, "commands/mcp.ts")];

test("no file of the MCP server reaches a private (underscored) member of an SDK object", () => {
  const privates = files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) => [...line.matchAll(/(?:\.|\{\s*|,\s*)(_[A-Za-z]\w*)/g)].map((m) => `${f.slice(SRC.length + 1)}:${i + 1} ${m[1]}`)),
  );
  expect(privates).toEqual([]);
});
