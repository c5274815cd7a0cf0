/**
 * The loop screen's entry points: run a loop, or follow one, on a screen that is already open. They
 * return the exit code instead of exiting, and leave the screen open, so the selection screen can run
 * or attach without leaving the alternate buffer; `run` and `monitor` open the screen, call these and
 * close it.
 */
import { writeSync } from "node:fs";
import type { CliRenderer } from "@opentui/core";
import { ExitCode } from "../errors.ts";
import { stopLoop } from "../control/stop-loop.ts";
import { STOP_WAIT_SEC } from "../control/stop-wait.ts";
import { followLoop, LEFT_FOLLOWING, WAITING_TO_START } from "../control/follow-loop.ts";
import { exitCodeFor, runPrepared } from "./runner.ts";
import type { Lock } from "../state/lock.ts";
import { loopPaths } from "../state/paths.ts";
import { isFinal, type State } from "../state/schema.ts";
import { readState } from "../state/store.ts";
import type { StorySource } from "../stories/source.ts";
import { forTerminal } from "../term/inert.ts";
import { renderEvent, useColor } from "../term/render.ts";
import { waitAtEnd } from "../term/end-wait.ts";
import type { CompleteEvent, LoopEvent } from "../record/events.ts";
import { LoopModel } from "../screen/loop-model.ts";
import { attachScreen, type Screen } from "../screen/renderer.ts";
import { ScreenView } from "../screen/screen-view.ts";

export interface ScreenOutcome {
  code: number;
  /** What to print on the main screen once the alternate one is gone (the loop's ending, how the follow ended). */
  after: string[];
  /**
   * The loop's end box as the line stream prints it (its Complete event), for stdout once the
   * alternate screen is gone — so the window, and its scrollback, keep how the loop ended. Null
   * when no Complete was seen (then `after` says how it ended).
   */
  box: string[] | null;
}

/** Collects the loop's Complete event from what the view is shown, and draws its end box for the main screen. */
function endBox() {
  let last: CompleteEvent | null = null;
  return {
    see(e: LoopEvent): void {
      if (e.type === "Complete") last = e;
    },
    box(): string[] | null {
      return last ? renderEvent(last, { color: useColor(process.stdout) }) : null;
    },
  };
}

/** Runs the loop here on `renderer`; after the end, the result view until Esc/Enter (unless the stop came from another terminal). */
export async function runOnScreen(renderer: CliRenderer, state: State, source: StorySource, lock: Lock, planned?: LoopEvent | null): Promise<ScreenOutcome> {
  const model = runModel(state, planned);
  const screen = attachScreen(renderer, model);
  const said: string[] = [];
  const complete = endBox();
  const view = new ScreenView(screen, model, {
    mode: "run",
    statePath: loopPaths(state.worktree_path).state,
    worktree: state.worktree_path,
    onSay: (m) => said.push(m),
    onEvent: (e) => complete.see(e),
  });
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
  let remote = false; // a signal (`wt-loop stop`, `timeout`, `kill`): nobody may be here to close the result view
  const onRemote = () => void (remote = true);
  process.on("SIGINT", onRemote);
  process.on("SIGTERM", onRemote);
  process.on("SIGUSR2", onRemote);
  try {
    const final = await runPrepared(state, source, { view, lock, exit });
    // The loop is over: the worktree is free whatever the screen still shows (a new start, status, list).
    await view.lastState();
    lock.release();
    const code = isFinal(final.status) ? exitCodeFor(final.status) : 1;
    const ending = `Loop ${final.status}${final.reason ? `: ${final.reason}` : ""}`;
    // The final state (the completion's answer and what it did) before the banner: a cleanup deleted the branch the Complete event named.
    model.state(final);
    model.ended(code, ending);
    screen.redraw();
    if (!remote) await waitAtEnd(view.untilQuit());
    const after = [ending, ...said.filter((m) => m.startsWith("warning:"))];
    return { code, after, box: complete.box() };
  } finally {
    process.off("SIGINT", onRemote);
    process.off("SIGTERM", onRemote);
    process.off("SIGUSR2", onRemote);
    view.dispose();
    await screen.close(false);
  }
}

/** The model `run` shows: the loop it runs, listed from its plan (when read already) before the loop is written. */
export function runModel(state: State, planned?: LoopEvent | null): LoopModel {
  // Fed by the runner's store in memory (its events with their places in the log): the log is read back only for the messages on screen.
  const model = new LoopModel({ mode: "run", events: loopPaths(state.worktree_path).events, since: state.started_at, fed: true });
  if (planned) model.plan(planned);
  return model;
}

/** The monitor's model and the screen it is attached to. */
export interface MonitorScreen {
  model: LoopModel;
  screen: Screen;
}

/** The model `monitor` shows: the loop of `worktree`, its events from the current run's start. */
export async function monitorModel(worktree: string): Promise<LoopModel> {
  const paths = loopPaths(worktree);
  return new LoopModel({ mode: "monitor", events: paths.events, since: (await readState(paths.state))?.started_at });
}

/** `model` on `renderer`: `monitor` does it as the screen opens, before the terminal is set up (screen/load.ts `openScreen`). */
export const attachMonitor = (renderer: CliRenderer, model: LoopModel): MonitorScreen => ({ model, screen: attachScreen(renderer, model) });

/**
 * Follows the loop of `worktree` on `renderer` (`attached`: its model already on it): q leaves (the loop goes on; exit 0; Ctrl-C 130), s y stops it;
 * after its end, the result view (exit: the loop's code). SIGINT or SIGTERM leave too, with 130 or 143
 * as the line stream's monitor exits (the loop goes on).
 */
export async function monitorOnScreen(renderer: CliRenderer, worktree: string, attached?: MonitorScreen): Promise<ScreenOutcome> {
  const paths = loopPaths(worktree);
  const { model, screen } = attached ?? attachMonitor(renderer, await monitorModel(worktree));
  let left: number | null = null;
  const follow = followLoop(paths, { onWaiting: () => view.say(WAITING_TO_START) });
  const leave = (code: number) => {
    left ??= code;
    follow.stop();
  };
  const complete = endBox();
  const view = new ScreenView(screen, model, {
    mode: "monitor",
    statePath: paths.state,
    worktree,
    onLeave: (code) => leave(code),
    onEvent: (e) => complete.see(e),
    onStopLoop: async () => {
      const s = await readState(paths.state);
      if (s)
        await stopLoop(paths.state, s, { force: false, waitSec: STOP_WAIT_SEC, answer: "keep" }, (l) => view.say(l)).catch((err) =>
          view.say(String(err?.message ?? err)),
        );
    },
  });
  // Ctrl-C outside raw mode and `kill` end the view, never the loop.
  const onInt = () => leave(128 + 2); // SIGINT, as a shell reports it
  const onTerm = () => leave(128 + 15); // SIGTERM
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    for await (const e of follow) view.event(e);
    const end = await follow.ending;
    if (left !== null) return { code: left, after: [LEFT_FOLLOWING], box: null };
    process.off("SIGINT", onInt); // from here on the end view's wait answers them, with the loop's code
    process.off("SIGTERM", onTerm);
    if (end.note) view.say(end.note);
    const code = end.status ? ExitCode[end.status] : 1;
    await view.lastState();
    const last = await readState(paths.state).catch(() => null);
    if (last && (!model.st || last.started_at === model.st.started_at)) model.state(last);
    const st = model.st;
    model.ended(code, end.note ?? (end.status ? `Loop ${end.status}${st?.reason ? `: ${st.reason}` : ""}` : undefined));
    screen.redraw();
    if (view.alive) await waitAtEnd(view.untilQuit());
    return { code, after: end.note ? [end.note] : [], box: complete.box() };
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    follow.stop();
    view.dispose();
    await screen.close(false);
  }
}
