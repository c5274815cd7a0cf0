/**
 * Runs a prepared loop in this process: wires the engine to real git, the agent, the state file,
 * the event log, the renderer and the terminal, and turns signals into a graceful stop.
 */
import { mkdir } from "node:fs/promises";
import { consola } from "consola";
import { adapterFor } from "../agents/registry.ts";
import { branchCheckpoint } from "../checkpoint/branch.ts";
import { Git } from "../checkpoint/git.ts";
import { stashCheckpoint } from "../checkpoint/stash.ts";
import { ExitCode } from "../errors.ts";
import { loopPaths } from "../state/paths.ts";
import { processStartTime } from "../state/pid.ts";
import type { Completion, FinalStatus, State } from "../state/schema.ts";
import { EventLog, writeState } from "../state/store.ts";
import { ensureExcluded } from "../state/exclude.ts";
import type { StorySource } from "../stories/source.ts";
import { renderEvent, useColor } from "../term/render.ts";
import { setTitle } from "../term/title.ts";
import { runLoop } from "./engine.ts";
import { installStopHandlers } from "./stop.ts";

export const exitCodeFor = (status: FinalStatus): number => ExitCode[status];

export interface RunnerOptions {
  out?: { isTTY?: boolean; write(s: string): unknown };
  /** Answers the completion question when `on_complete` is ask; absent → keep. */
  ask?: (status: FinalStatus) => Promise<Completion>;
}

export async function runPrepared(state: State, source: StorySource, o: RunnerOptions = {}): Promise<State> {
  const out = o.out ?? process.stdout;
  const paths = loopPaths(state.worktree_path);
  await mkdir(paths.logs, { recursive: true });
  const controller = new AbortController();
  const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000, signal: controller.signal });
  await ensureExcluded(git);
  const name = state.change ?? state.worktree_name;
  const log = new EventLog(paths.events);
  const color = useColor(out);
  const stopHandlers = installStopHandlers(controller, () => state.agent_pid);
  try {
    return await runLoop(
      { ...state, runner_pid: process.pid, runner_started: processStartTime(process.pid) },
      {
        paths,
        source,
        adapter: adapterFor(state.agent),
        checkpoint: state.checkpoint === "branch" ? branchCheckpoint(git, name) : stashCheckpoint(git, name),
        git,
        env: { ...process.env, OPENSPEC_TELEMETRY: "0" },
        signal: controller.signal,
        emit(event) {
          log.append(event);
          const lines = renderEvent(event, { color });
          if (lines.length) out.write(lines.join("\n") + "\n");
        },
        save: (s) => writeState(paths.state, s),
        setTitle: (t) => setTitle(t, out),
        async chooseCompletion(status) {
          if (state.on_complete !== "ask") return state.on_complete;
          return o.ask ? o.ask(status) : "keep";
        },
      },
    );
  } finally {
    stopHandlers.dispose();
    log.close();
  }
}

/** The interactive completion question (SPEC §5), only ever asked on a TTY. */
export async function askCompletion(status: FinalStatus): Promise<Completion> {
  const answer = await consola.prompt(`Loop ${status}. What should happen to the loop's branch?`, {
    type: "select",
    options: [
      { label: "keep", value: "keep", hint: "stay on the loop's branch with its checkpoint commits" },
      { label: "cleanup", value: "cleanup", hint: "back to your branch, all the loop's work as uncommitted changes" },
    ],
    initial: "keep",
    cancel: "default",
  });
  return answer === "cleanup" ? "cleanup" : "keep";
}
