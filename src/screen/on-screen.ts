/**
 * The loop screen's entry points: run a loop, or follow one, on a screen that is already open. They
 * return the exit code instead of exiting, and leave the screen open, so the selection screen can run
 * or attach without leaving the alternate buffer; `run` and `monitor` open the screen, call these and
 * close it.
 */
import { writeSync } from "node:fs";
import type { CliRenderer } from "@opentui/core";
import { ExitCode } from "../errors.ts";
import { stopLoop } from "../loop/control.ts";
import { followLoop } from "../loop/follow-loop.ts";
import { exitCodeFor, runPrepared } from "../loop/runner.ts";
import type { Lock } from "../state/lock.ts";
import { loopPaths } from "../state/paths.ts";
import { isFinal, type State } from "../state/schema.ts";
import { readState } from "../state/store.ts";
import type { StorySource } from "../stories/source.ts";
import { forTerminal } from "../term/inert.ts";
import { LoopModel } from "./loop-model.ts";
import { attachScreen, type Screen } from "./renderer.ts";
import { ScreenView } from "./screen-view.ts";

/** Grace for a stop asked from the monitor screen (as `wt-loop stop` waits by default). */
const STOP_WAIT_SEC = 60;

export interface ScreenOutcome {
  code: number;
  /** What to print on the main screen once the alternate one is gone (the loop's ending, how the follow ended). */
  after: string[];
}

/** The loop screen before the loop is written (`run` opens it while the loop is prepared): status `starting`, no stories yet. */
export function showPreparing(renderer: CliRenderer): Screen {
  const model = new LoopModel({ mode: "run" });
  model.say("Preparing the loop…", "dim");
  return attachScreen(renderer, model);
}

/** Runs the loop here on `renderer`; after the end, the result view until Esc/Enter (unless the stop came from another terminal). */
export async function runOnScreen(renderer: CliRenderer, state: State, source: StorySource, lock: Lock): Promise<ScreenOutcome> {
  const model = new LoopModel({ mode: "run", events: loopPaths(state.worktree_path).events, since: state.started_at });
  const screen = attachScreen(renderer, model);
  const said: string[] = [];
  const view = new ScreenView(screen, model, { mode: "run", statePath: loopPaths(state.worktree_path).state, worktree: state.worktree_path, onSay: (m) => said.push(m) });
  // A force-quit ends the process from inside the runner: the terminal is given back first, so its
  // warning is printed where it can be read.
  const exit = (code: number): never => {
    renderer.destroy();
    void renderer.closed.finally(() => {
      if (said.length) writeSync(2, `${forTerminal(said.at(-1)!)}\n`);
      process.exit(code);
    });
    return undefined as never; // the process ends as soon as the terminal is back
  };
  let remote = false; // `wt-loop stop` from another terminal: nobody may be here to close the result view
  const onRemote = () => void (remote = true);
  process.on("SIGTERM", onRemote);
  process.on("SIGUSR2", onRemote);
  try {
    const final = await runPrepared(state, source, { view, lock, exit });
    const code = isFinal(final.status) ? exitCodeFor(final.status) : 1;
    const ending = `Loop ${final.status}${final.reason ? `: ${final.reason}` : ""}`;
    // The final state (the completion's answer and what it did) before the banner: a cleanup deleted the branch the Complete event named.
    model.state(final);
    model.ended(code, ending);
    screen.redraw();
    if (!remote) await view.untilQuit();
    const after = [ending, ...said.filter((m) => m.startsWith("warning:"))];
    return { code, after };
  } finally {
    process.off("SIGTERM", onRemote);
    process.off("SIGUSR2", onRemote);
    view.dispose();
    await screen.close(false);
  }
}

/** Follows the loop of `worktree` on `renderer`: q leaves (the loop goes on), s y stops it; after its end, the result view. */
export async function monitorOnScreen(renderer: CliRenderer, worktree: string): Promise<ScreenOutcome> {
  const paths = loopPaths(worktree);
  const model = new LoopModel({ mode: "monitor", events: paths.events, since: (await readState(paths.state))?.started_at });
  const screen = attachScreen(renderer, model);
  let left = false;
  const follow = followLoop(paths, { onWaiting: () => view.say("Waiting for loop to start...") });
  const leave = () => {
    left = true;
    follow.stop();
  };
  const view = new ScreenView(screen, model, {
    mode: "monitor",
    statePath: paths.state,
    worktree,
    onLeave: leave,
    onStopLoop: async () => {
      const s = await readState(paths.state);
      if (s) await stopLoop(paths.state, s, { force: false, waitSec: STOP_WAIT_SEC, answer: "keep" }, (l) => view.say(l)).catch((err) => view.say(String(err?.message ?? err)));
    },
  });
  // Ctrl-C outside raw mode and `kill` end the view, never the loop.
  process.on("SIGINT", leave);
  process.on("SIGTERM", leave);
  try {
    for await (const e of follow) view.event(e);
    const end = await follow.ending;
    if (left) return { code: 0, after: ["Stopped following. The loop keeps running: `wt-loop monitor` follows it again, `wt-loop stop` stops it."] };
    if (end.note) view.say(end.note);
    const code = end.status ? ExitCode[end.status] : 1;
    const last = await readState(paths.state).catch(() => null);
    if (last && (!model.st || last.started_at === model.st.started_at)) model.state(last);
    const st = model.st;
    model.ended(code, end.note ?? (end.status ? `Loop ${end.status}${st?.reason ? `: ${st.reason}` : ""}` : undefined));
    screen.redraw();
    if (view.alive) await view.untilQuit();
    return { code, after: end.note ? [end.note] : [] };
  } finally {
    process.off("SIGINT", leave);
    process.off("SIGTERM", leave);
    follow.stop();
    view.dispose();
    await screen.close(false);
  }
}
