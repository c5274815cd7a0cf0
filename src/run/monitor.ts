/**
 * `wt-loop monitor`: follows a loop from any terminal — the loop screen on a terminal (its own story list
 * replaces --story), the line stream otherwise. Ctrl-C (or q) ends the following, never the loop.
 */
import { followLoop, LEFT_FOLLOWING, WAITING_TO_START } from "../control/follow-loop.ts";
import { ExitCode } from "../errors.ts";
import { openScreen, wantsScreen } from "../screen/load.ts";
import { loopPaths } from "../state/paths.ts";
import { InlineView } from "../term/inline-view.ts";
import { print } from "../term/print.ts";

/** Follows the loop of `worktree` until it ends or the user leaves; the exit code (the loop's, or 130 for Ctrl-C). */
export async function monitorLoop(worktree: string, o: { plain: boolean; story?: string }): Promise<number> {
  if (wantsScreen({ plain: o.plain || o.story !== undefined })) {
    const { attachMonitor, monitorModel, monitorOnScreen } = await import("./on-screen.ts");
    // Its model on the renderer before the terminal is set up: the first frame drawn is the loop's, not a blank one.
    const model = await monitorModel(worktree);
    const shown: { screen?: ReturnType<typeof attachMonitor> } = {};
    const renderer = await openScreen(undefined, (r) => {
      shown.screen = attachMonitor(r, model);
    });
    if (renderer)
      try {
        const { code, after, box } = await monitorOnScreen(renderer, worktree, shown.screen);
        renderer.destroy();
        await renderer.closed.catch(() => {});
        if (box) print(box.join("\n")); // the end box, as the line stream prints it, stays on the main screen
        for (const line of after) print(line);
        return code;
      } finally {
        renderer.destroy();
      }
  }
  // On a terminal the activity line counts down a wait on an unavailable agent. Its messages go
  // with the loop's lines: monitor's output is all about the loop.
  const view = new InlineView({ story: o.story, messages: "out" });
  const follow = followLoop(loopPaths(worktree), { onWaiting: () => print(WAITING_TO_START) });
  // Ctrl-C ends the view, never the loop: say so, so nobody wonders whether they just stopped it.
  let left = false;
  const leave = () => {
    left = true;
    follow.stop();
  };
  process.once("SIGINT", leave);
  try {
    for await (const e of follow) view.event(e);
    const end = await follow.ending;
    if (left) {
      view.say(LEFT_FOLLOWING);
      return 130;
    }
    if (end.note) view.say(end.note);
    return end.status ? ExitCode[end.status] : 1;
  } finally {
    process.off("SIGINT", leave);
    view.dispose();
  }
}
