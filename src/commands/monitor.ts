import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { parseLoggedEvent } from "../loop/events.ts";
import { followLines } from "../loop/follow.ts";
import { ExitCode } from "../errors.ts";
import { loopPaths } from "../state/paths.ts";
import { isFinal, type FinalStatus } from "../state/schema.ts";
import { correctDeadRunner, readState } from "../state/store.ts";
import { renderEvent, useColor } from "../term/render.ts";
import { activityLine } from "../term/activity.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions } from "./_args.ts";

const args = { story: { type: "string", valueHint: "id", description: "Show only this story's messages" } } as const;

export default defineCommand({
  meta: { name: "monitor" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("monitor", args, rawArgs, a);
    const wt = await resolveWorktree();
    const paths = loopPaths(wt.path);
    const color = useColor();
    // Ctrl-C ends the view, never the loop: say so, so nobody wonders whether they just stopped it.
    process.once("SIGINT", () => {
      process.stdout.write("\nStopped following. The loop keeps running: `wt-loop monitor` follows it again, `wt-loop stop` stops it.\n");
      process.exit(130);
    });

    // Wait for a loop: a state that is starting or running, or one that ended (then replay it).
    let state = await readState(paths.state);
    if (!state || !existsSync(paths.events)) {
      console.log("Waiting for loop to start...");
      while (!state || !existsSync(paths.events)) {
        await Bun.sleep(200);
        state = await readState(paths.state);
      }
    }
    const since = state.started_at;
    let final: FinalStatus | null = null;
    const activity = activityLine(process.stdout); // on a terminal: the countdown of a wait on an unavailable agent
    const follower = followLines(paths.events, 0, (line) => {
      const e = parseLoggedEvent(line);
      if (!e || e.ts < since) return; // an earlier run's events
      const lines = renderEvent(e, { color, story: a.story });
      if (lines.length) activity.out.write(lines.join("\n") + "\n");
      activity.event(e);
      if (e.type === "Complete") {
        final = e.status;
        follower.stop();
      }
    });
    // A runner killed with SIGKILL, or force-quit, writes no Complete event: notice it from the state.
    let finalSince = 0;
    const watchdog = setInterval(async () => {
      const s = await readState(paths.state).catch(() => null);
      if (!s) return;
      const note = await correctDeadRunner(paths.state, s);
      if (note) {
        activity.out.write(`\n${note}\n`);
        final = isFinal(s.status) ? s.status : "stopped";
        return follower.stop();
      }
      if (s.started_at !== since) return follower.stop(); // a newer loop replaced this one
      // Final and no runner: the Complete event follows within milliseconds, unless there is none.
      if (isFinal(s.status) && s.runner_pid === null) {
        finalSince ||= Date.now();
        if (Date.now() - finalSince > 2000) {
          activity.out.write(`\nThe loop ended ${s.status}: ${s.reason ?? ""}\n`);
          final = s.status;
          follower.stop();
        }
      }
    }, 500);
    await follower.done;
    clearInterval(watchdog);
    activity.dispose();
    return final ? ExitCode[final] : 1;
  }),
});
