/**
 * Following a loop from outside its runner (`monitor`): the events of its log as they are written,
 * and how it ended. A runner killed with SIGKILL, or force-quit, writes no Complete event, so the
 * state is watched too: a dead runner is corrected (and said), and a final state with no runner and
 * no Complete event ends the follow after a grace.
 */
import { existsSync } from "node:fs";
import { fileStamp } from "../proc/file-stamp.ts";
import type { LoopFiles } from "../state/paths.ts";
import { isFinal, type FinalStatus } from "../state/final.ts";
import { readState } from "../state/store.ts";
import type { State } from "../state/schema.ts";
import { hasOwnRunner, processStartTime } from "../proc/pid.ts";
import { correctDeadRunner } from "./liveness.ts";
import { parseLoggedEvent, type Logged } from "../record/events.ts";
import { followLines } from "./follow.ts";
import { field } from "../text/format.ts";

/** What a follower (monitor's line stream, its screen) says while no loop has started yet, and when the user leaves. */
export const WAITING_TO_START = "Waiting for loop to start...";
export const LEFT_FOLLOWING = "Stopped following. The loop keeps running: `wt-loop monitor` follows it again, `wt-loop stop` stops it.";

/** How a follow ended: the loop's final status (null: stopped following first), and what to tell the user. */
export interface FollowEnding {
  status: FinalStatus | null;
  note: string | null;
}

/** The logged events of the loop, in order; iteration ends when the loop (or the follow) does. */
export interface LoopFollow extends AsyncIterable<Logged> {
  ending: Promise<FollowEnding>;
  /** Stop following (the loop goes on). */
  stop(): void;
}

const WAIT_MS = 200;
/** How often the state and its runner are looked at: a runner killed with SIGKILL is said within a second or two. */
const WATCH_MS = 1000;
/** Final and no runner: its Complete event follows within milliseconds, unless there is none. */
const NO_COMPLETE_GRACE_MS = 2000;

export function followLoop(paths: Pick<LoopFiles, "state" | "events">, o: { onWaiting?: () => void } = {}): LoopFollow {
  const queue: Logged[] = [];
  let wake: (() => void) | null = null;
  let stopped = false;
  let stopFollower = () => {};
  let ending: FollowEnding = { status: null, note: null };
  const endWith = (status: FinalStatus, note: string | null) => {
    ending = { status, note };
    stopFollower();
  };

  const run = (async () => {
    // Wait for a loop: a state that is starting or running, or one that ended (then replay it).
    let state = await readState(paths.state);
    if (!state || !existsSync(paths.events)) {
      o.onWaiting?.();
      while (!stopped && (!state || !existsSync(paths.events))) {
        await Bun.sleep(WAIT_MS);
        state = await readState(paths.state);
      }
    }
    if (stopped || !state) return;
    const since = state.started_at;
    const follower = followLines(paths.events, 0, (line) => {
      const e = parseLoggedEvent(line);
      if (!e || e.ts < since) return; // an earlier run's events
      queue.push(e);
      wake?.();
      if (e.type === "Complete") endWith(e.status, null);
    });
    stopFollower = () => follower.stop();
    if (stopped) follower.stop();
    let finalSince = 0;
    // The state is parsed again only when it was written since (a write is a rename: a new inode):
    // a long agent run writes none for minutes, and a big state costs milliseconds to parse.
    let read: { at: string; state: State | null } | null = null;
    const current = async () => {
      const at = fileStamp(paths.state);
      if (read?.at !== at || !at) read = { at, state: await readState(paths.state).catch(() => null) };
      return read.state;
    };
    // A runner proven ours stays ours while its pid lives with the same start time (a pid is reused only
    // after its process ended): one read of its /proc stat a second, not the whole proof.
    let proven: { state: State; started: string } | null = null;
    const watchdog = setInterval(async () => {
      const s = await current();
      if (!s || ending.status) return;
      const runner = s.runner_pid;
      if (proven?.state !== s || runner === null || processStartTime(runner) !== proven.started) {
        proven = null;
        const note = await correctDeadRunner(paths.state, s);
        if (note) return endWith(isFinal(s.status) ? s.status : "stopped", note);
        if (s.runner_started && hasOwnRunner(s)) proven = { state: s, started: s.runner_started };
      }
      if (s.started_at !== since) return follower.stop(); // a newer loop replaced this one
      if (isFinal(s.status) && s.runner_pid === null) {
        finalSince ||= Date.now();
        if (Date.now() - finalSince > NO_COMPLETE_GRACE_MS) endWith(s.status, `The loop ended ${s.status}: ${field(s.reason ?? "")}`);
      }
    }, WATCH_MS);
    try {
      await follower.done;
    } finally {
      clearInterval(watchdog);
    }
  })();
  let finished = false;
  const done = run.finally(() => {
    finished = true;
    wake?.();
  });

  return {
    async *[Symbol.asyncIterator]() {
      while (true) {
        while (queue.length) yield queue.shift()!;
        if (finished) return void (await done); // a failure to read the loop is thrown here
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
    ending: done.then(
      () => ending,
      () => ending, // the iteration throws the failure
    ),
    stop() {
      stopped = true;
      stopFollower();
    },
  };
}
