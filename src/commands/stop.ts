import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { stopLoop } from "../control/stop-loop.ts";
import { STOP_WAIT_SEC } from "../control/stop-wait.ts";
import { action, givenOptions } from "./args/args.ts";
import { requireState } from "./args/require-state.ts";
import { print } from "../term/print.ts";

const args = {
  force: { type: "boolean", description: "Kill the loop and its agent at once instead of stopping gracefully" },
  cleanup: {
    type: "boolean",
    description: "Answer the completion question with cleanup (back to your branch, the work uncommitted) instead of keep",
  },
  wait: { type: "string", valueHint: "sec", description: `How long to wait for a graceful stop (default: ${STOP_WAIT_SEC})` },
} as const;

export default defineCommand({
  meta: { name: "stop" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("stop", args, rawArgs, a);
    const waitSec = a.wait === undefined ? STOP_WAIT_SEC : Number(a.wait);
    if (!Number.isFinite(waitSec) || waitSec <= 0) throw new UserError(`Invalid option: --wait must be a number of seconds greater than 0 (got '${a.wait}').`);
    if (a.force && a.cleanup)
      throw new UserError("Invalid option: --force kills the loop without its completion step, so it cannot --cleanup. Use one of them.");
    const { path, state } = await requireState();
    await stopLoop(path, state, { force: !!a.force, waitSec, answer: a.cleanup ? "cleanup" : "keep" }, (l) => print(l));
  }),
});
