import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { isRunner } from "../state/pid.ts";
import { isFinal } from "../state/schema.ts";
import { correctDeadRunner, readState, writeState } from "../state/store.ts";
import { Git } from "../checkpoint/git.ts";
import { resumeAfterDeadRunner } from "../checkpoint/resume.ts";
import { action, givenOptions } from "./_args.ts";
import { requireState } from "./_state.ts";

const args = {
  force: { type: "boolean", description: "Kill the loop and its agent at once instead of stopping gracefully" },
  wait: { type: "string", valueHint: "sec", description: "How long to wait for a graceful stop (default: 60)" },
} as const;

export default defineCommand({
  meta: { name: "stop", description: "Stop the loop running in this worktree" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("stop", args, rawArgs, a);
    const waitSec = a.wait === undefined ? 60 : Number(a.wait);
    if (!Number.isFinite(waitSec) || waitSec <= 0) throw new UserError(`Invalid option: --wait must be a number of seconds greater than 0 (got '${a.wait}').`);
    const { wt, path, state } = await requireState();
    const note = await correctDeadRunner(path, state);
    if (note) return void console.log(note);
    if (state.completing && !isRunner(state.runner_pid, state.runner_started)) {
      // The runner died during its completion: finish it now (checkpoint/resume.ts), then record that.
      const git = new Git({ cwd: wt.path, timeoutMs: state.command_timeout_sec * 1000 });
      for (const line of await resumeAfterDeadRunner(git, state)) console.log(line);
      return void (await writeState(path, state));
    }
    if (state.status !== "running" || !isRunner(state.runner_pid, state.runner_started))
      return void console.log(`No loop is running in ${wt.name} (status: ${state.status}).`);
    const pid = state.runner_pid!;
    if (a.force) {
      // Our own runner, verified above by pid and start time; its agent leads its own process group.
      if (state.agent_pid) killQuietly(-state.agent_pid, "SIGKILL");
      killQuietly(pid, "SIGKILL");
      // SIGKILL is delivered asynchronously: wait until the runner is really gone before recording it.
      for (let i = 0; i < 50 && isRunner(pid, state.runner_started); i++) await Bun.sleep(100);
      await correctDeadRunner(path, (await readState(path)) ?? state);
      console.log(`Killed the loop (runner pid ${pid}${state.agent_pid ? `, agent group ${state.agent_pid}` : ""}). Its state is now stopped.`);
      return;
    }
    process.kill(pid, "SIGTERM");
    console.log(`Asked the loop (runner pid ${pid}) to stop; waiting for it to finish…`);
    const deadline = Date.now() + waitSec * 1000;
    let lastNote = Date.now();
    while (Date.now() < deadline) {
      await Bun.sleep(200);
      const now = await readState(path);
      if (now && isFinal(now.status)) return void console.log(`The loop is ${now.status}: ${now.reason ?? ""}`);
      if (!isRunner(pid, state.runner_started)) {
        await correctDeadRunner(path, now ?? state);
        return void console.log("The loop's runner exited; its state is now stopped.");
      }
      if (Date.now() - lastNote > 5000) {
        lastNote = Date.now();
        console.log("Still stopping (the agent is being ended and the state written)…");
      }
    }
    throw new UserError(`The loop did not stop within ${waitSec}s. Run \`wt-loop stop --force\` to kill it and its agent.`);
  }),
});

function killQuietly(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
