import { defineCommand } from "citty";
import { followLoop } from "../loop/follow-loop.ts";
import { ExitCode } from "../errors.ts";
import { loopPaths } from "../state/paths.ts";
import { InlineView } from "../term/inline-view.ts";
import { resolveWorktree } from "../worktree.ts";
import { action, givenOptions } from "./_args.ts";
import { print } from "../term/print.ts";

const args = { story: { type: "string", valueHint: "id", description: "Show only this story's messages" } } as const;

export default defineCommand({
  meta: { name: "monitor" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("monitor", args, rawArgs, a);
    const wt = await resolveWorktree();
    // On a terminal the activity line counts down a wait on an unavailable agent. Its messages go
    // with the loop's lines: monitor's output is all about the loop.
    const view = new InlineView({ story: a.story, messages: "out" });
    const follow = followLoop(loopPaths(wt.path), { onWaiting: () => print("Waiting for loop to start...") });
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
        view.say("Stopped following. The loop keeps running: `wt-loop monitor` follows it again, `wt-loop stop` stops it.");
        return 130;
      }
      if (end.note) view.say(end.note);
      return end.status ? ExitCode[end.status] : 1;
    } finally {
      process.off("SIGINT", leave);
      view.dispose();
    }
  }),
});
