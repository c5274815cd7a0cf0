import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { hasOwnRunner } from "../proc/pid.ts";
import { writeState } from "../state/store.ts";
import { Git } from "../checkpoint/git.ts";
import { resumeAfterDeadRunner } from "../checkpoint/resume.ts";
import { stopLoop } from "../loop/control.ts";
import { action, givenOptions } from "./_args.ts";
import { requireState } from "./_state.ts";

const args = {
  force: { type: "boolean", description: "Kill the loop and its agent at once instead of stopping gracefully" },
  cleanup: {
    type: "boolean",
    description: "Answer the completion question with cleanup (back to your branch, the work uncommitted) instead of keep",
  },
  wait: { type: "string", valueHint: "sec", description: "How long to wait for a graceful stop (default: 60)" },
} as const;

export default defineCommand({
  meta: { name: "stop" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("stop", args, rawArgs, a);
    const waitSec = a.wait === undefined ? 60 : Number(a.wait);
    if (!Number.isFinite(waitSec) || waitSec <= 0) throw new UserError(`Invalid option: --wait must be a number of seconds greater than 0 (got '${a.wait}').`);
    if (a.force && a.cleanup) throw new UserError("Invalid option: --force kills the loop without its completion step, so it cannot --cleanup. Use one of them.");
    const { wt, path, state } = await requireState();
    if (state.completing && !hasOwnRunner(state)) {
      // The runner died during its completion: finish it now (checkpoint/resume.ts), then record that.
      const git = new Git({ cwd: wt.path, timeoutMs: state.command_timeout_sec * 1000 });
      for (const line of await resumeAfterDeadRunner(git, state)) console.log(line);
      return void (await writeState(path, state));
    }
    await stopLoop(path, state, { force: !!a.force, waitSec, answer: a.cleanup ? "cleanup" : "keep" }, (l) => console.log(l));
  }),
});
