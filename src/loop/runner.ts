/**
 * Runs a prepared loop in this process: wires the engine to real git, the agent, the state file,
 * the event log, the renderer and the terminal, and turns signals into a graceful stop.
 */
import { adapterFor } from "../agents/registry.ts";
import { branchCheckpoint } from "../checkpoint/branch.ts";
import { Git } from "../checkpoint/git.ts";
import { stashCheckpoint } from "../checkpoint/stash.ts";
import { errorMessage, ExitCode, io } from "../errors.ts";
import { loopPaths, refusePlantedLinks, runFiles, runPaths } from "../state/paths.ts";
import { makeDir, removeSafe } from "../proc/safe-fs.ts";
import { ownedBy, processStartTime, signalQuietly } from "../proc/pid.ts";
import { isFinal, type Completion, type FinalStatus, type State } from "../state/schema.ts";
import type { Lock } from "../state/lock.ts";
import { asStopped, EventLog, writeState, writeStateSync } from "../state/store.ts";
import { ensureExcluded } from "../state/exclude.ts";
import type { StorySource } from "../stories/source.ts";
import { renderEvent, useColor } from "../term/render.ts";
import { setTitle } from "../term/title.ts";
import { runLoop } from "./engine.ts";
import type { LoopEvent } from "./events.ts";
import { stopControl } from "./stop.ts";
import { listenKeys } from "../term/keys.ts";
import { killPendingGroups } from "../proc/spawn.ts";
import { loopNotifier } from "../term/notify.ts";

export const exitCodeFor = (status: FinalStatus): number => ExitCode[status];

export interface RunnerOptions {
  out?: { isTTY?: boolean; write(s: string): unknown };
  /** Sees every event before it is rendered (the activity line of term/activity.ts). */
  onEvent?: (e: LoopEvent) => void;
  /** Answers the completion question when `on_complete` is ask; absent → keep. Ends its prompt on `signal`. */
  ask?: (status: FinalStatus, signal: AbortSignal) => Promise<Completion>;
  /** The worktree's lock this runner holds: put back if an agent deletes it. */
  lock?: Lock;
}

export async function runPrepared(state: State, source: StorySource, o: RunnerOptions = {}): Promise<State> {
  const out = o.out ?? process.stdout;
  const base = loopPaths(state.worktree_path);
  // Every run has its own logs, created fresh: an iteration log is never read from a file that an
  // earlier run (or an earlier `run` of this one) left behind.
  const run = runFiles(base, state.started_at);
  const paths = runPaths(state.worktree_path, state.started_at);
  const controller = new AbortController();
  const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000, signal: controller.signal });
  const name = state.change ?? state.worktree_name;
  let log: EventLog;
  try {
    await io("clear", run.logs, () => removeSafe(state.worktree_path, run.logs));
    await io("create", run.logs, () => makeDir(state.worktree_path, run.logs));
    await ensureExcluded(git);
    log = new EventLog(paths.events);
  } catch (err) {
    // Nothing ran yet; a state left `starting` would block the next start for a minute.
    const now = new Date().toISOString();
    const reason = `Fatal error: ${errorMessage(err)}`;
    await writeState(paths.state, { ...state, status: "stuck", reason, error: errorMessage(err), ended_at: now, updated_at: now }).catch(() => {});
    throw err;
  }
  const color = useColor(out);
  let live = state; // the latest state the engine saved, for a force-quit
  const notifier = loopNotifier(state, paths.state, { out });
  const stop = stopControl({
    controller,
    say: (m) => process.stderr.write(`\n${m}\n`),
    forceQuit: () => forceQuit(paths.state, live),
  });
  let keys = listenKeys((key) => stop.press(key));
  try {
    return await runLoop(
      { ...state, runner_pid: process.pid, runner_started: processStartTime(process.pid) },
      {
        paths,
        source,
        adapter: adapterFor(state.agent),
        checkpoint: state.checkpoint === "branch" ? branchCheckpoint(git, name) : stashCheckpoint(git, name),
        env: { ...process.env, OPENSPEC_TELEMETRY: "0" },
        signal: controller.signal,
        emit(event) {
          o.onEvent?.(event);
          const lines = renderEvent(event, { color });
          if (lines.length) out.write(lines.join("\n") + "\n");
          log.append(event); // after the screen: when the log fails (a full disk), the user still sees why
        },
        async reclaimFiles() {
          // The event log (before each append) and each new log file (its folder) see to themselves.
          // A link the agent planted ends the loop here, before anything is written through it.
          refusePlantedLinks(state.worktree_path, [run.logs]);
          await ensureExcluded(git);
          o.lock?.reassert();
        },
        save: (s) => {
          live = s;
          // Once written: a --notify command reads the state file it is given.
          return writeState(paths.state, s).then(() => notifier.saw(s));
        },
        setTitle: (t) => setTitle(t, out),
        chooseCompletion(status) {
          // A stop from another terminal answered already; nobody may be at this window.
          if (stop.answer) return { kind: "now", choice: stop.answer };
          if (state.on_complete !== "ask") return { kind: "now", choice: state.on_complete };
          if (!o.ask) return { kind: "now", choice: "keep" };
          const ask = o.ask;
          stop.settle(); // the stop (if any) is done: a "still stopping" hint under the question would lie
          keys.dispose(); // the prompt reads the keys now
          keys = { dispose() {} };
          return {
            kind: "ask",
            answer: async () => {
              notifier.question(live); // after the final status was written (and notified)
              const asking = new AbortController();
              const here = ask(status, asking.signal).then((choice) => ({ choice, remote: false }));
              const r = await Promise.race([here, stop.answered().then((choice) => ({ choice, remote: true }))]);
              if (r.remote) asking.abort(); // answered elsewhere: the prompt lets go of the terminal
              return r.choice;
            },
          };
        },
      },
    );
  } finally {
    await notifier.settle(); // before the pending groups are ended: a --notify command is one
    killPendingGroups();
    keys.dispose();
    stop.dispose();
    log.close();
  }
}

/** The interactive completion question (SPEC §5), only ever asked on a TTY. */
export async function askCompletion(status: FinalStatus, signal: AbortSignal): Promise<Completion> {
  // Loaded only when asked: consola costs ~9 ms of start-up that no other path needs.
  const { consola } = await import("consola");
  // consola's prompt cannot be cancelled: when the question is answered elsewhere (`wt-loop stop`),
  // let go of the terminal so the pending read neither keeps the process alive nor leaves raw mode.
  signal.addEventListener("abort", () => {
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.destroy();
    process.stdout.write("\nAnswered from another terminal (`wt-loop stop`).\n");
  });
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

/** Force-quit: kill the agent's group and record `stopped` synchronously — the process exits next. */
function forceQuit(statePath: string, s: State): void {
  // This runner's own agent, proven as every other path proves it (the state is this process's own copy).
  const agent = ownedBy(s).agentGroup;
  if (agent !== null) signalQuietly(-agent, "SIGKILL");
  try {
    // Forced during the completion step: the loop's own ending stands; only the runner is gone.
    const now = new Date().toISOString();
    writeStateSync(
      statePath,
      isFinal(s.status)
        ? { ...s, runner_pid: null, agent_pid: null, agent_started: null, completion_pending: false, updated_at: now, error: s.error ?? "Force-quit during the completion step" }
        : asStopped(s, "Force-quit by the user"),
    );
  } catch {
    // best effort: status will notice the dead runner anyway
  }
}
