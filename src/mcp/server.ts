/**
 * `wt-loop mcp`: every loop of the repository as an MCP server on stdio, built on the official SDK.
 * Tool inputs and outputs are zod schemas — the same ones that define the state file and the event
 * log — so what a client receives is the documented JSON, validated on the way out.
 */
import { Receipt } from "../record/receipt-schema.ts";
import { receiptOf } from "../record/receipt.ts";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };
import { totalsOf } from "../record/totals.ts";
import { UserError } from "../errors.ts";
import { listLoops, summarize } from "../fleet/loops.ts";
import { LoopSummary, WorktreeLoop } from "../fleet/loop-schema.ts";
import { recentEvents } from "../fleet/recent-events.ts";
import { findWorktree, type Target } from "../fleet/target.ts";
import { LoggedEvent } from "../record/events.ts";
import { loopPaths } from "../state/paths.ts";
import { Iteration, State } from "../state/schema.ts";
import { readState } from "../state/store.ts";
import { correctDeadRunner } from "../control/liveness.ts";
import { stopTool } from "./stop.ts";
import { steerTools } from "./steer.ts";
import { capAnswer, Capped } from "./cap.ts";

const worktreeArg = z.string().optional().describe("The worktree: its path or its name (the folder's name). Default: the worktree the server runs in.");

const LoopStatus = z.object({
  worktree: z.string(),
  name: z.string(),
  state: State,
  receipt: Receipt,
  summary: LoopSummary,
  note: z.string().nullable(),
  capped: Capped,
});
const LoopHistory = z.object({
  worktree: z.string(),
  iterations: z.array(Iteration),
  totals: z.object({
    iterations: z.number(),
    duration_ms: z.number(),
    commits: z.number(),
    tokens: z.number(),
    cost_usd: z.number(),
    timed_out: z.number(),
    unavailable_runs: z.number(),
    waited_ms: z.number(),
  }),
  capped: Capped,
});
const LoopLog = z.object({
  worktree: z.string(),
  story_id: z.string().nullable(),
  events: z.array(LoggedEvent),
  more: z.boolean(),
  clipped: z.boolean(),
  capped: Capped,
});
const StopResult = z.object({ worktree: z.string(), exit_code: z.number(), output: z.string(), status: z.string().nullable(), capped: Capped });

/** A tool result: the JSON as text (for clients that read text) and as structured content. */
const result = <T extends Record<string, unknown>>(value: T) => ({
  content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }],
  structuredContent: value,
});

async function loopState(t: Target) {
  const path = loopPaths(t.path).state;
  const state = await readState(path);
  if (!state) throw new UserError(`No loop has run in ${t.name} (${t.path}) yet.`);
  return { path, state };
}

export function createServer(cwd: string): McpServer {
  const server = new McpServer({ name: "wt-loop", version: pkg.version });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    "list_loops",
    {
      title: "List loops",
      description:
        "Every worktree of the repository with its wt-loop loop: status, story k/n, iteration i/max, elapsed time, cost, runner alive. " +
        "Same JSON as `wt-loop list --json`.",
      outputSchema: { loops: z.array(WorktreeLoop), capped: Capped },
      annotations: readOnly,
    },
    async () => result(capAnswer({ loops: await listLoops(cwd) }, "`wt-loop list --json` in the repository has all")),
  );

  server.registerTool(
    "loop_status",
    {
      title: "Loop status",
      description:
        "The state file of one worktree's loop (as `wt-loop status --json`), with its receipt (each story's attempts, time, tokens and cost; " +
        "while it runs, a forecast of the rest) and a summary; under `--parallel`, `lanes` has each story at work in its own worktree (story, attempt, " +
        "step, agent pid). A dead runner's state is corrected to stopped.",
      inputSchema: { worktree: worktreeArg },
      outputSchema: LoopStatus.shape,
      annotations: readOnly,
    },
    async ({ worktree }) => {
      const t = await findWorktree(cwd, worktree);
      const { path, state } = await loopState(t);
      const note = await correctDeadRunner(path, state);
      return result(capAnswer({ worktree: t.path, name: t.name, state, receipt: receiptOf(state), summary: summarize(state), note }, rest("status", path)));
    },
  );

  server.registerTool(
    "loop_history",
    {
      title: "Loop history",
      description:
        "One entry per iteration of one worktree's loop (story, attempt, outcome, reason, times, commits, tokens, cost) and totals, " +
        "as `wt-loop history --json`.",
      inputSchema: { worktree: worktreeArg },
      outputSchema: LoopHistory.shape,
      annotations: readOnly,
    },
    async ({ worktree }) => {
      const t = await findWorktree(cwd, worktree);
      const { path, state } = await loopState(t);
      return result(capAnswer({ worktree: t.path, iterations: state.iterations, totals: totalsOf(state.iterations) }, rest("history", path)));
    },
  );

  server.registerTool(
    "loop_log",
    {
      title: "Loop log",
      description:
        "The recent events of one story of the current run (progress, the agent's messages and tool calls, iteration ends, errors), oldest first, " +
        "bounded: at most `limit` events, each message clipped to `max_chars`.",
      inputSchema: {
        worktree: worktreeArg,
        story: z.string().optional().describe('Story id (e.g. "2"). Default: the story of the latest event.'),
        limit: z.number().int().min(1).max(500).default(50).describe("At most this many events (the most recent)."),
        max_chars: z.number().int().min(100).max(100_000).default(4000).describe("Clip each message to this many characters."),
      },
      outputSchema: LoopLog.shape,
      annotations: readOnly,
    },
    async ({ worktree, story, limit, max_chars }) => {
      const t = await findWorktree(cwd, worktree);
      const { state } = await loopState(t);
      const r = await recentEvents(loopPaths(t.path).events, { storyId: story, since: state.started_at, limit, maxChars: max_chars });
      return result(capAnswer({ worktree: t.path, ...r }, `\`wt-loop log --json\` in ${t.path} has all`));
    },
  );

  server.registerTool(
    "stop_loop",
    {
      title: "Stop loop",
      description:
        "Stops one worktree's loop as `wt-loop stop` does: gracefully (the agent is stopped, completed stories stay committed, " +
        "work in progress stays in the tree), or at once with force.",
      inputSchema: { worktree: worktreeArg, force: z.boolean().default(false).describe("Kill the runner and its agent at once.") },
      outputSchema: StopResult.shape,
      annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ worktree, force }) => {
      const t = await findWorktree(cwd, worktree);
      const r = await stopTool(t, force);
      const after = await readState(loopPaths(t.path).state).catch(() => null);
      return result(
        capAnswer({ worktree: t.path, exit_code: r.code, output: r.output, status: after?.status ?? null }, rest("status", loopPaths(t.path).state)),
      );
    },
  );

  steerTools(server, cwd);

  server.registerResource(
    "loop-state",
    new ResourceTemplate("wt-loop://state/{worktree}", {
      list: async () => ({
        resources: (await listLoops(cwd))
          .filter((e) => e.loop)
          .map((e) => ({
            uri: stateUri(e.name),
            name: `${e.name} loop state`,
            description: `The loop state of ${e.worktree}: ${e.loop!.status}`,
            mimeType: "application/json",
          })),
      }),
    }),
    { title: "Loop state", description: "A worktree's .claude/loop-state.json (schema: `wt-loop schema state`)", mimeType: "application/json" },
    async (uri, vars) => {
      const t = await findWorktree(cwd, decodeURIComponent(String(vars.worktree)));
      const { state } = await loopState(t);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(state, null, 2) }] };
    },
  );
  return server;
}

/** Where an answer's cut values are whole: the command's --json, or the state file itself. */
const rest = (command: string, stateFile: string) => `\`wt-loop ${command} --json\` in the worktree, or its state file ${stateFile}, has all`;

export const stateUri = (name: string) => `wt-loop://state/${encodeURIComponent(name)}`;
