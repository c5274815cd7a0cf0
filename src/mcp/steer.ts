/**
 * The MCP tools that steer a running loop — pause_loop, resume_loop, add_note, set_max_iterations —
 * through control/steer.ts, as `wt-loop pause|resume|note|max` do: the same sentence back, and a
 * refusal (no running loop, already paused…) as an answer with `ok: false`, not a protocol error.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { UserError } from "../errors.ts";
import { findWorktree } from "../fleet/target.ts";
import { addNote, changeMaxIterations, pauseLoop, resumeLoop, setMaxIterations } from "../control/steer.ts";
import { loopPaths, type LoopFiles } from "../state/paths.ts";
import { readState } from "../state/store.ts";

const worktreeArg = z.string().optional().describe("The worktree: its path or its name (the folder's name). Default: the worktree the server runs in.");

const SteerResult = {
  worktree: z.string(),
  ok: z.boolean().describe("the loop took the request; false: `message` says why not"),
  message: z.string().describe("what happened, as `wt-loop pause|resume|note|max` print it"),
  status: z.string().nullable().describe("the loop's status after it"),
  max_iterations: z.number().nullable().describe("the loop's iteration limit after it"),
};

export function steerTools(server: McpServer, cwd: string): void {
  const steer = async (worktree: string | undefined, act: (paths: LoopFiles) => Promise<string>) => {
    const t = await findWorktree(cwd, worktree);
    const paths = loopPaths(t.path);
    let ok = true;
    let message: string;
    try {
      message = await act(paths);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      [ok, message] = [false, err.message];
    }
    const after = await readState(paths.state).catch(() => null);
    const value = { worktree: t.path, ok, message, status: after?.status ?? null, max_iterations: after?.max_iterations ?? null };
    return { content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }], structuredContent: value, ...(ok ? {} : { isError: true }) };
  };
  const annotations = { destructiveHint: false, openWorldHint: false };

  server.registerTool(
    "pause_loop",
    {
      title: "Pause loop",
      description:
        "Pauses one worktree's running loop when its current iteration ends (the agent is not interrupted), as `wt-loop pause`. " +
        "The loop then waits, status `paused`, until resume_loop or stop_loop.",
      inputSchema: { worktree: worktreeArg },
      outputSchema: SteerResult,
      annotations: { ...annotations, idempotentHint: false },
    },
    ({ worktree }) => steer(worktree, pauseLoop),
  );
  server.registerTool(
    "resume_loop",
    {
      title: "Resume loop",
      description: "Resumes a paused loop (its next iteration starts now), or calls off a pause not reached yet, as `wt-loop resume`.",
      inputSchema: { worktree: worktreeArg },
      outputSchema: SteerResult,
      annotations: { ...annotations, idempotentHint: false },
    },
    ({ worktree }) => steer(worktree, resumeLoop),
  );
  server.registerTool(
    "add_note",
    {
      title: "Add a note",
      description:
        "Leaves a note for the agent of one worktree's running loop, as `wt-loop note`: " +
        'the next iteration\'s prompt carries it, in a "Note from the user" section.',
      inputSchema: { worktree: worktreeArg, text: z.string().min(1).describe("The note, as the agent should read it.") },
      outputSchema: SteerResult,
      annotations: { ...annotations, idempotentHint: false },
    },
    ({ worktree, text }) => steer(worktree, (p) => addNote(p, text)),
  );
  server.registerTool(
    "set_max_iterations",
    {
      title: "Set the iteration limit",
      description:
        "Raises or lowers one worktree's running loop's iteration limit, as `wt-loop max`: by `delta` (+10, -5) or to `value`. " +
        "Never below the iterations it has run, the running one included.",
      inputSchema: {
        worktree: worktreeArg,
        delta: z.number().int().optional().describe("Change the limit by this many iterations (negative lowers it)."),
        value: z.number().int().min(1).optional().describe("Set the limit to this."),
      },
      outputSchema: SteerResult,
      annotations: { ...annotations, idempotentHint: false },
    },
    ({ worktree, delta, value }) =>
      steer(worktree, (p) => {
        if ((delta === undefined) === (value === undefined))
          throw new UserError("Give either `delta` (e.g. 10 or -10) or `value` (the new limit), not both or neither.");
        return delta !== undefined ? changeMaxIterations(p, delta) : setMaxIterations(p, value!);
      }),
  );
}
