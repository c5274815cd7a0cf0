/**
 * Stopping a loop from outside its runner (`wt-loop stop`, the MCP server's stop_loop): the signal,
 * the wait for the runner to end, and the force-kill. A runner that waits on its completion question
 * is still a runner: the stop answers the question (keep, or cleanup with `--cleanup`) and waits for
 * it to finish. A completion whose runner died is finished here.
 */
import { ownAgents } from "../state/lane-agents.ts";
import { Git } from "../checkpoint/git.ts";
import { resumeAfterDeadRunner } from "../checkpoint/resume.ts";
import { UserError } from "../errors.ts";
import { hasOwnRunner, ownedBy, signalQuietly } from "../proc/pid.ts";
import { isFinal } from "../state/final.ts";
import type { Completion, State } from "../state/schema.ts";
import { readState, writeState } from "../state/store.ts";
import { correctDeadRunner } from "./liveness.ts";
import { recoverLanes } from "./lane-recovery.ts";
import { cleanupAfterDeadRunner, cleanupLeft } from "./dead-cleanup.ts";
import { ANSWER_SIGNALS } from "./stop-presses.ts";
import { field } from "../text/format.ts";

export interface StopRequest {
  force: boolean;
  waitSec: number;
  /** The answer to the completion question (asked at the end of the loop when `on_complete` is ask). */
  answer: Completion;
}

/**
 * Is this state's runner alive and still owning the loop: running, waiting on its question, or in
 * its completion step (a final status with `runner_pid` still set: the cleanup is moving refs)?
 */
export const hasLiveRunner = (s: State) =>
  (s.status === "running" || s.status === "paused" || s.completion_pending || s.runner_pid !== null) && ownedBy(s).runner !== null;

const POLL_MS = 200;
const NOTE_EVERY_MS = 5000;

export async function stopLoop(path: string, state: State, req: StopRequest, say: (line: string) => void): Promise<void> {
  if (state.completing && !hasOwnRunner(state)) {
    // The runner died during its completion: finish it now (checkpoint/resume.ts), then record that.
    const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000 });
    for (const line of await resumeAfterDeadRunner(git, state)) say(line);
    return writeState(path, state);
  }
  const note = await correctDeadRunner(path, state);
  const owned = ownedBy(state);
  if (note || !hasLiveRunner(state) || owned.runner === null) {
    say(note ?? `No loop is running in ${state.worktree_name} (status: ${state.status}).`);
    // `--parallel`: a dead runner's lanes and half-done integration are not left for a `start` the user may never run.
    for (const line of await closeLeftLanes(path, state)) say(line);
    // `--cleanup` asked of a loop whose runner died before its completion: done here, as the runner would have.
    if (req.answer === "cleanup" && cleanupLeft(state)) {
      const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000 });
      say(await cleanupAfterDeadRunner(git, state));
      await writeState(path, state);
    } else if (req.answer === "cleanup" && state.completion) say(`Its completion was already done (${state.completion}): nothing to clean up.`);
    return;
  }
  const pid = owned.runner;
  const alive = () => ownedBy({ ...state, runner_pid: pid }).runner !== null;
  if (req.force) {
    // Our own runner and (when proven) its agent, which leads its own process group; what else its
    // agent started carries the run's tag and is ended by the dead-runner correction below.
    // The runner is ours (else the correction above answered): a foreign pid here is the agent's.
    if (owned.foreign !== null)
      say(`The state names agent pid ${owned.foreign}, which is not this loop's agent (a stale or foreign state file): its group was not signalled.`);
    const agents = ownAgents(state); // its own agent and, under --parallel, every lane's
    for (const group of agents) signalQuietly(-group, "SIGKILL");
    signalQuietly(pid, "SIGKILL");
    // SIGKILL is delivered asynchronously: wait until the runner is really gone before recording it.
    for (let i = 0; i < 50 && alive(); i++) await Bun.sleep(100);
    await correctDeadRunner(path, (await readState(path)) ?? state);
    return say(
      `Killed the loop (runner pid ${pid}${agents.length ? `, agent group${agents.length > 1 ? "s" : ""} ${agents.join(", ")}` : ""}). ` +
        `Its state is now ${(await readState(path))?.status ?? "stopped"}.`,
    );
  }
  signalQuietly(pid, ANSWER_SIGNALS[req.answer]);
  say(
    state.completion_pending
      ? `The loop ended ${state.status} and was waiting for its completion question: answered ${req.answer}…`
      : isFinal(state.status)
        ? `The loop ended ${state.status} and is finishing its completion step (runner pid ${pid}); waiting for it…`
        : `Asked the loop (runner pid ${pid}${state.status === "paused" ? ", paused" : ""}) to stop${req.answer === "cleanup" ? " and clean up" : ""}; ` +
          `waiting for it to finish…`,
  );
  // Done when the runner has ended: the completion step runs after the final status is written.
  const deadline = Date.now() + req.waitSec * 1000;
  let lastNote = Date.now();
  while (Date.now() < deadline) {
    await Bun.sleep(POLL_MS);
    if (!alive()) {
      const now = (await readState(path)) ?? state;
      if (await correctDeadRunner(path, now)) return say("The loop's runner exited; its state is now stopped.");
      return say(`The loop is ${now.status}: ${field(now.reason ?? "")}`);
    }
    if (Date.now() - lastNote > NOTE_EVERY_MS) {
      lastNote = Date.now();
      say("Still stopping (the agent is being ended and the state written)…");
    }
  }
  throw new UserError(`The loop did not stop within ${req.waitSec}s. Run \`wt-loop stop --force\` to kill it and its agent.`);
}

/** What `start` does first after a dead runner (lane-recovery.ts): the integration undone, every lane closed, its work kept by ref. */
async function closeLeftLanes(path: string, state: State): Promise<string[]> {
  if ((state.parallel ?? 1) <= 1 || !state.lanes?.length) return [];
  const git = new Git({ cwd: state.worktree_path, timeoutMs: state.command_timeout_sec * 1000 });
  const notes = await recoverLanes(git, state);
  await writeState(path, state);
  // Nothing goes again now: the loop is stopped.
  return notes.map((n) => n.replace(/ Stories not integrated go again\.$/, " `wt-loop start` does the stories not integrated again."));
}
