/** Starting the loop: here (`inline`, `run`) or in a new terminal window running `wt-loop run`. */
import { exitCodeFor, runPrepared } from "../loop/runner.ts";
import { endedState } from "../loop/ending.ts";
import { writeStarting, type Prepared } from "../loop/prepare.ts";
import { selfArgv } from "../self.ts";
import { loopPaths } from "../state/paths.ts";
import type { State } from "../state/schema.ts";
import type { Lock } from "../state/lock.ts";
import { writeState } from "../state/store.ts";
import type { StorySource } from "../stories/source.ts";
import { chooseLauncher, NO_TERMINAL, openWindow, withTmuxEnv } from "../term/window.ts";
import { UserError } from "../errors.ts";
import { isFinal } from "../state/schema.ts";
import { keepRunningWhenStdoutCloses } from "../term/stdout.ts";
import { InlineView } from "../term/inline-view.ts";
import { restoreWindowName } from "../term/title.ts";
import { print } from "../term/print.ts";
import { plural } from "../term/format.ts";

/** Runs the loop here, holding the worktree's lock until its completion step is over. */
export async function runInline(state: State, source: StorySource, lock: Lock): Promise<number> {
  keepRunningWhenStdoutCloses();
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

export async function openLoopWindow(p: Prepared): Promise<number> {
  const s = p.state;
  const chosen = chooseLauncher({
    terminal: s.terminal,
    env: process.env,
    platform: process.platform,
    which: (b) => Bun.which(b),
    cwd: s.worktree_path,
    cmd: [...selfArgv(), "run"],
    name: `ralph-${s.worktree_name}`.replace(/[.:]/g, "-"),
  });
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
