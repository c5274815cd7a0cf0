// What a stop key means is decided in one place (control/stop-presses.ts), whatever view reported the key:
// the first press stops gracefully, three within 3 s force-quit, a view's own force key force-quits
// at once, and once the question waits no press counts.
import { afterEach, expect, test } from "bun:test";
import { stopControl, type StopControl } from "../../src/control/stop-presses.ts";

let control: StopControl | null = null;
afterEach(() => control?.dispose());

function make() {
  const said: string[] = [];
  const log: string[] = [];
  const controller = new AbortController();
  control = stopControl({
    controller,
    say: (m) => said.push(m),
    forceQuit: () => log.push("forceQuit"),
    exit: ((code: number) => {
      log.push(`exit ${code}`);
    }) as (code: number) => never,
  });
  return { control, said, log, controller };
}

test("the first press stops gracefully and says two more force-quit; the third within 3 s force-quits", () => {
  const { control, said, log, controller } = make();
  control.press("q");
  expect(controller.signal.aborted).toBe(true);
  // Each press says how many more are needed: two after the first (not "three times"), one after the second.
  expect(said).toEqual(["Stopping (q): press q twice more within 3 s to force-quit; the agent is being stopped, completed stories stay committed."]);
  control.press("q");
  expect(log).toEqual([]);
  expect(said.at(-1)).toBe("Still stopping… press q once more within 3 s to force-quit.");
  control.press("Ctrl-C");
  expect(log).toEqual(["forceQuit", "exit 130"]);
  expect(said.at(-1)).toStartWith("Force-quit: the agent was killed");
});

test("a force-stop intent force-quits at once", () => {
  const { control, log } = make();
  control.force();
  expect(log).toEqual(["forceQuit", "exit 130"]);
});

test("once the loop settled on its question, presses and force keys do nothing", () => {
  const { control, log, said, controller } = make();
  control.settle();
  control.press("q");
  control.press("q");
  control.press("q");
  control.force();
  expect([log, said, controller.signal.aborted]).toEqual([[], [], false]);
});

// Signals come from outside the window (`timeout`, systemd, `kill`, `wt-loop stop`): each answers the
// question (nobody may be at the window), and a second one forces. Sent to this test process, whose
// handlers are the control's own while it lives.
for (const [sig, answer] of [
  ["SIGINT", "keep"],
  ["SIGTERM", "keep"],
  ["SIGUSR2", "cleanup"],
] as const) {
  test(`${sig}: a graceful stop that answers ${answer}; a second signal force-quits`, async () => {
    const { control, log, controller } = make();
    process.kill(process.pid, sig);
    expect(await control.answered()).toBe(answer);
    expect(controller.signal.aborted).toBe(true);
    expect(log).toEqual([]);
    const forced = new Promise<void>((r) => process.once("SIGTERM", () => queueMicrotask(r)));
    process.kill(process.pid, "SIGTERM");
    await forced;
    expect(log).toEqual(["forceQuit", "exit 130"]);
  });
}

test("at the question (settled), a signal still answers it", async () => {
  const { control, log } = make();
  control.settle();
  process.kill(process.pid, "SIGINT");
  expect(await control.answered()).toBe("keep");
  expect(log).toEqual([]);
});
