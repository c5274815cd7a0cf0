/** Starting the loop: here (`inline`, `run`) or in a new terminal window running `wt-loop run`. */
import { exitCodeFor, runPrepared } from "./runner.ts";
import { endedState } from "../state/ending.ts";
import { writeStarting, type Prepared } from "../setup/prepare.ts";
import { selfArgv } from "../proc/self.ts";
import { loopPaths } from "../state/paths.ts";
import type { State } from "../state/schema.ts";
import type { Lock } from "../state/lock.ts";
import { writeState } from "../state/store.ts";
import type { StorySource } from "../stories/source.ts";
import { chooseLauncher, freeSessionName, NO_TERMINAL, openWindow, withTmuxEnv } from "../term/window.ts";
import { UserError } from "../errors.ts";
import { isFinal } from "../state/schema.ts";
import { keepRunningWhenStdoutCloses } from "../term/stdout.ts";
import { InlineView } from "../term/inline-view.ts";
import { restoreWindowName } from "../term/title.ts";
import { print, printError } from "../term/print.ts";
import { plural } from "../text/format.ts";
import { openScreen, wantsScreen } from "../screen/load.ts";
import type { CliRenderer } from "@opentui/core";
import type { ScreenFirst } from "./screen-first.ts";

/**
 * Runs the loop here, holding the worktree's lock until its completion step is over: on the loop
 * screen when this is a terminal (and not `--plain`), else as a stream of lines.
 */
export async function runInline(state: State, source: StorySource, lock: Lock, o: { plain?: boolean; first?: ScreenFirst } = {}): Promise<number> {
  keepRunningWhenStdoutCloses();
  if (o.first ? o.first.wanted : wantsScreen(o)) {
    const renderer = o.first ? await o.first.take() : await openScreen();
    if (renderer) return runScreen(renderer, state, source, lock, o.first);
  }
  const view = new InlineView();
  try {
    const final = await runPrepared(state, source, { view, lock });
    return isFinal(final.status) ? exitCodeFor(final.status) : 1;
  } finally {
    view.dispose();
    lock.release();
    await restoreWindowName();
  }
}

async function runScreen(renderer: CliRenderer, state: State, source: StorySource, lock: Lock, first?: ScreenFirst): Promise<number> {
  // Loaded only on a terminal: the renderer and the screen's model are no part of a piped run.
  const { runOnScreen } = await import("./on-screen.ts");
  try {
    const { code, after, box } = await runOnScreen(renderer, state, source, lock, first?.planned);
    renderer.destroy();
    // A terminal that went away fails the screen's last write: it is closed all the same.
    await renderer.closed.catch(() => {});
    first?.flush(); // what the preparation said while the screen was already up
    // The end box, as the line stream prints it, stays on the main screen (the first line of `after` says the same in one line).
    if (box) print(box.join("\n"));
    for (const line of box ? after.slice(1) : after) printError(line);
    return code;
  } finally {
    renderer.destroy();
    lock.release(); // before anything that may still fail: the worktree is free once the loop is over
    if (first) {
      await renderer.closed.catch(() => {});
      first.flush();
    }
    await restoreWindowName();
  }
}

export async function openLoopWindow(p: Prepared, o: { plain?: boolean } = {}): Promise<number> {
  const s = p.state;
  const named = (name: string) =>
    chooseLauncher({
      terminal: s.terminal,
      env: process.env,
      platform: process.platform,
      which: (b) => Bun.which(b),
      cwd: s.worktree_path,
      cmd: [...selfArgv(), "run", ...(o.plain ? ["--plain"] : [])],
      name,
    });
  // Named for the product: the seed matches a loop's window by its title (`Ralph: …`), never by this name.
  const base = `wt-loop-${s.worktree_name}`.replace(/[.:]/g, "-");
  let chosen = named(base);
  // The previous loop's session may still be there (someone attached reads its summary): the next free name.
  if (chosen?.terminal === "tmux-detached") chosen = named(await freeSessionName(base));
  if (!chosen) throw new UserError(NO_TERMINAL);
  const launch = await withTmuxEnv(chosen, process.env);
  const { note, lock } = await writeStarting(p, "window");
  try {
    await openWindow(launch, s.worktree_path);
  } catch (err) {
    // The window never opened: leave no `starting` state or lock behind to block the next start.
    await writeState(loopPaths(s.worktree_path).state, endedState(s, { status: "stopped", reason: (err as Error).message }));
    lock.release();
    throw err;
  }
  if (note) print(note);
  const stories = p.plan.source.kind === "manual" ? "1 (the task)" : `${p.plan.stories.length} from ${p.plan.tasksFile}`;
  print(
    [
      `Started a loop in ${s.worktree_name} (${launch.terminal}).`,
      `  Task:    ${s.task.split("\n")[0]}`,
      `  Stories: ${stories}`,
      `  Agent:   ${s.agent}${s.model ? ` (${s.model})` : ""}`,
      `  Limits:  ${plural(s.max_iterations, "iteration")}, ${plural(s.max_retries, "attempt")} per story, ${s.iteration_timeout_min} min per run`,
      ...(launch.hint ? [`  ${launch.hint}`] : []),
      "",
      "Follow it with `wt-loop monitor`, check it with `wt-loop status`, stop it with `wt-loop stop`.",
    ].join("\n"),
  );
  return 0;
}
