/** The root command: subcommands are loaded lazily so `status` does not pay for the loop engine. */
import { defineCommand } from "citty";
import pkg from "../package.json" with { type: "json" };

export const main = defineCommand({
  meta: { name: "wt-loop", version: pkg.version, description: "Run a coding agent in a loop inside a git worktree until the change is done" },
  subCommands: {
    start: () => import("./commands/start.ts").then((m) => m.default),
    run: () => import("./commands/run.ts").then((m) => m.default),
    stop: () => import("./commands/stop.ts").then((m) => m.default),
    status: () => import("./commands/status.ts").then((m) => m.default),
    history: () => import("./commands/history.ts").then((m) => m.default),
    monitor: () => import("./commands/monitor.ts").then((m) => m.default),
    demo: () => import("./commands/demo.ts").then((m) => m.default),
    list: () => import("./commands/list.ts").then((m) => m.default),
    statusline: () => import("./commands/statusline.ts").then((m) => m.default),
    mcp: () => import("./commands/mcp.ts").then((m) => m.default),
    schema: () => import("./commands/schema.ts").then((m) => m.default),
    "demo-agent": () => import("./commands/demo-agent.ts").then((m) => m.default),
  },
});
