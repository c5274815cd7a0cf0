import { defineCommand } from "citty";
import { gitWorktrees } from "../fleet/loops.ts";
import { action, givenOptions } from "./args/args.ts";

export default defineCommand({
  meta: { name: "mcp" },
  args: {},
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("mcp", {}, rawArgs, a);
    await gitWorktrees(process.cwd()); // outside a repository: the usual message, before any protocol
    const { createServer } = await import("../mcp/server.ts");
    const { AnsweringStdioTransport } = await import("../mcp/transport.ts");
    const server = createServer(process.cwd());
    const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
    await server.connect(new AnsweringStdioTransport());
    // The end of stdin: the client is gone, so is the server.
    process.stdin.once("end", () => void server.close());
    await closed;
  }),
});
