/**
 * Runs a prepared loop in this process: wires the engine to real git, the agent, the state file,
 * the event log and a View (what shows the loop, and owns the keys), and turns signals and the
 * view's key intents into a graceful stop.
 */
import { relative } from "node:path";
import { auditorOf } from "../agents/auditor.ts";
import { adapterFor } from "../agents/registry.ts";
import { otherAgents } from "../agents/story-agent.ts";
import { loadStories } from "../stories/source.ts";
import { Git } from "../checkpoint/git.ts";
import { errorMessage, ExitCode, io } from "../errors.ts";
import { loopPaths, refusePlantedLinks, runFiles, runPaths } from "../state/paths.ts";
import { makeDir, moveAsideWhileRunning, removeSafe, takeDisplaced } from "../proc/safe-fs.ts";
import { processStartTime, signalQuietly } from "../proc/pid.ts";
import { ownAgents } from "../state/lane-agents.ts";
import { isFinal, type FinalStatus, type State } from "../state/schema.ts";
import type { Lock } from "../state/lock.ts";
import { writeState, writeStateSync } from "../state/store.ts";
import { ensureExcluded } from "../checkpoint/exclude.ts";
import { repairLocators } from "../checkpoint/git-admin.ts";
import type { StorySource } from "../stories/source.ts";
import { runLoop } from "../engine/engine.ts";
import { endedState } from "../state/ending.ts";
import { fileStore, type LoopStore } from "../record/store.ts";
import { showStore, wireLoop } from "./wire.ts";
import { stopControl } from "../control/stop-presses.ts";
import type { View } from "../engine/view.ts";
import { killPendingGroups } from "../proc/spawn.ts";
import { loopNotifier } from "../term/notify.ts";
import { issueSyncer } from "../github/issue-sync.ts";
import { prOffered, publishPr } from "../github/pull-request.ts";
import { clockTime } from "../text/format.ts";
import { watchHangUp } from "../term/hangup.ts";
import { loopSandbox } from "./sandbox.ts";
import { attended, nobodyAttached } from "../term/attended.ts";

const NOBODY_ANSWERED = "Nobody is attached to this tmux session any more: answered keep, as for a loop nobody watches.";
import type { Sandbox } from "../proc/sandbox.ts";

export const exitCodeFor = (status: FinalStatus): number => ExitCode[status];

export interface RunnerOptions {
  /** Shows the loop and reports its keys; the caller disposes of it after the run. */
  view: View;
  /** The worktree's lock this runner holds: put back if an agent deletes it. */
  lock?: Lock;
  /** The environment the agent and --notify run with. */
  env?: Record<string, string | undefined>;
  /** How a force-quit ends the process (a full screen gives the terminal back first); process.exit by default. */
  exit?: (code: number) => never;
}

export async function runPrepared(state: State, source: StorySource, o: RunnerOptions): Promise<State> {
  const { view } = o;
  const base = loopPaths(state.worktree_path);
  // Every run has its own logs, created fresh: an iteration log is never read from a file that an
  // earlier run (or an earlier `run` of this one) left behind.
  const run = runFiles(base, state.started_at);
  const paths = runPaths(state.worktree_path, state.started_at);
  const controller = new AbortController();
  let notice = (_message: string) => {}; // the event log, once it is open
  const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000, signal: controller.signal, onNotice: (m) => notice(m) });
  let store: LoopStore;
  const env = o.env ?? process.env;
  const adapter = adapterFor(state.agent);
  let sandbox: Sandbox | null = null;
  try {
    await io("clear", run.logs, () => removeSafe(state.worktree_path, run.logs));
    await io("create", run.logs, () => makeDir(state.worktree_path, run.logs));
    await ensureExcluded(git);
    // The sandbox lets in what each agent of the loop needs: the reviewer's, the auditor's, and those the stories' headings name.
    const named = state.sandbox ? otherAgents(state, await loadStories(source)) : [];
    const others = [state.review, state.audit ? auditorOf(state).name : null, ...named].filter((n) => n !== null && n !== state.agent);
    sandbox = await loopSandbox(state, [adapter, ...[...new Set(others)].map((n) => adapterFor(n!))], env);
    // The loop's record (record/store.ts): the state this runner holds, written and told to the view.
    store = fileStore({ ...state, runner_pid: process.pid, runner_started: processStartTime(process.pid) }, paths);
  } catch (err) {
    await sandbox?.close();
    // Nothing ran yet; a state left `starting` would block the next start for a minute.
    await writeState(paths.state, endedState(state, { status: "stuck", reason: `Fatal error: ${errorMessage(err)}`, error: errorMessage(err) })).catch(
      () => {},
    );
    throw err;
  }
  notice = (message) => store.emit({ type: "Error", message });
  const syncer = issueSyncer(state, { ctx: { cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000, env }, warn: (m) => view.warn(m) });
  const notifier = loopNotifier(state, paths.state, { terminal: (t, b) => view.notice(t, b), warn: (m) => view.warn(m), env, sandbox });
  const stop = stopControl({
    controller,
    say: (m) => view.say(m),
    forceQuit: () => forceQuit(paths.state, store.state),
    exit: o.exit,
  });
  view.keys((intent) => (intent.kind === "force-stop" ? stop.force() : stop.press(intent.key)));
  // A closed window: the loop stops and its question is answered keep — never asked of a dead terminal.
  const unwatch = watchHangUp(() => stop.hangUp("terminal closed"));
  const unshow = showStore(store, view);
  const unsubscribe = store.subscribe((change) => {
    if (change.kind !== "saved") return;
    // Once written: a --notify command reads the state file it is given.
    notifier.saw(change.state);
    syncer.saw(change.state); // --issue-sync: GitHub hears of an accepted story only once the state holds it
  });
  try {
    moveAsideWhileRunning(true);
    return await runLoop(
      await wireLoop(store, git, source, {
        env: { ...env, OPENSPEC_TELEMETRY: "0" },
        sandbox,
        signal: controller.signal,
        async reclaimFiles() {
          // The event log (before each append) and each new log file (its folder) see to themselves.
          // A link the agent planted ends the loop here, before anything is written through it.
          refusePlantedLinks(state.worktree_path, [run.logs]);
          // A file put where `.claude/` was is moved aside by the first write after it (makeDir), here at the latest.
          await io("create", run.logs, () => makeDir(state.worktree_path, run.logs));
          for (const d of takeDisplaced())
            store.emit({
              type: "Error",
              message:
                `A file was put where the loop's folder ${relative(state.worktree_path, d.file)} belongs (by the agent or --verify): wt-loop moved it to ` +
                `${relative(state.worktree_path, d.to)}, where it is kept like any other file of the attempt, made its folder again and goes on.`,
            });
          await ensureExcluded(git);
          // A `commondir` or `.git` file written meanwhile would make the user's git read another repository.
          for (const message of repairLocators(await git.commonDir())) store.emit({ type: "Error", message });
          o.lock?.reassert();
        },
        setTitle: (t) => view.title(t),
        publish: async (s, record) =>
          (
            await publishPr(git.uninterruptible(), { cwd: s.worktree_path, timeoutMs: s.command_timeout_sec * 1000, env }, s, record, {
              onWait: (until, reason) =>
                view.warn(`${reason}: the pull request waits until ${clockTime(until)} (within --max-wait; \`wt-loop stop\` ends the wait).`),
              // A stop (now, or before the loop ended) ends that wait at once: the loop's ending stands, `wt-loop pr` does the rest.
              signal: controller.signal,
            })
          ).message,
        chooseCompletion(status) {
          // A stop from another terminal answered already; nobody may be at this window.
          if (stop.answer) return { kind: "now", choice: stop.answer };
          // `pr` keeps the loop's branch; the engine then pushes it and opens its pull request (publish, below).
          if (state.on_complete !== "ask") return { kind: "now", choice: state.on_complete === "pr" ? "keep" : state.on_complete };
          if (!view.canAsk) return { kind: "now", choice: "keep" };
          stop.settle(); // the stop (if any) is done: a "still stopping" hint under the question would lie
          return {
            kind: "ask",
            answer: async () => {
              // A tmux session nobody is attached to (the detached one `start` opens without a
              // display): nobody can answer, so keep — as without a terminal — never a question left open.
              if ((await attended()) === false) return "keep";
              if (stop.answer) return stop.answer; // answered by a signal meanwhile: asked of nobody
              notifier.question(store.state); // after the final status was written (and notified)
              const asking = new AbortController();
              const offerPr = await prOffered(git.uninterruptible(), store.state, env);
              const here = view.ask(status, asking.signal, offerPr).then((choice) => ({ choice, why: null }));
              const remote = stop
                .answered()
                .then((choice) => ({ choice, why: `Answered ${choice} from outside this window (\`wt-loop stop\`, or a signal: SIGTERM, SIGINT).` }));
              // The last client detaches while it asks: nobody is left to answer.
              const polling = new AbortController();
              const nobody = nobodyAttached(polling.signal).then(() => ({ choice: "keep" as const, why: NOBODY_ANSWERED }));
              const r = await Promise.race([here, remote, nobody]);
              polling.abort();
              if (r.why) asking.abort(r.why); // answered elsewhere: the prompt lets go of the terminal and says why
              return r.choice;
            },
          };
        },
      }),
    );
  } finally {
    moveAsideWhileRunning(false);
    await notifier.settle(); // before the pending groups are ended: a --notify command is one
    await syncer.settle();
    killPendingGroups();
    await sandbox?.close();
    stop.dispose();
    unwatch();
    unsubscribe();
    unshow();
    store.close();
  }
}

/** Force-quit: kill the agent's group and record `stopped` synchronously — the process exits next. */
function forceQuit(statePath: string, s: State): void {
  // This runner's own agents (its lanes' too), proven as every other path proves it (the state is this process's own copy).
  // The lanes stay in the state: the next start closes them (lane-recovery.ts).
  for (const agent of ownAgents(s)) signalQuietly(-agent, "SIGKILL");
  try {
    // Forced during the completion step: the loop's own ending stands; only the runner is gone.
    const now = new Date().toISOString();
    writeStateSync(
      statePath,
      isFinal(s.status)
        ? {
            ...s,
            runner_pid: null,
            agent_pid: null,
            agent_started: null,
            completion_pending: false,
            updated_at: now,
            error: s.error ?? "Force-quit during the completion step",
          }
        : endedState(s, { status: "stopped", reason: "Force-quit by the user", error: s.error }),
    );
  } catch {
    // best effort: status will notice the dead runner anyway
  }
}
