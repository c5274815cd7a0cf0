// The terminal experience in real terminals (tmux on a private socket): `start` opens a new window
// running `run`, the title shows the progress, `q` stops, `q q q` force-quits, the completion prompt
// is answered with keys, and `monitor` in another pane shows what `run` shows.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SLOW_STOP_VAR } from "../../src/control/stop-presses.ts";
import { isAlive } from "../../src/proc/pid.ts";
import { ROOT } from "../helpers/cli.ts";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, TASKS_2_STORIES } from "../helpers/repo.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux, type Tmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();
const { envFor } = compiled;
let tmux: Tmux;

describeWithTmux("terminal experience in tmux", () => {
  test("start opens a new tmux window running run; the pane title shows [i/max], then [done]; a quiet agent shows the time it has run; the window's automatic name comes back", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE({ hangSec: 3 }), COMPLETE({ hangSec: 1.5 })]);
    const starter = tmux.start(repo, env, `wt-loop start --plain --on-complete keep --max 9`);
    const run = await tmux.waitFor("a new window running run", () => tmux.panes().find((p) => p.id !== starter && p.cmd.includes("run")));
    expect(run.cmd).toContain(`${compiled.bin()} run`);
    await tmux.waitFor("the progress title", () => tmux.panes().find((p) => p.id === run.id && p.title === "Ralph: repo [1/9]"));
    await tmux.waitFor("the tmux window to be renamed too", () => tmux.panes().find((p) => p.id === run.id && p.window === "Ralph: repo [1/9]"));
    await tmux.waitFor("the activity line of the quiet agent", () => /the agent is working · \ds into this iteration/.test(tmux.capture(run.id)));
    await tmux.waitFor("the final title", () => tmux.panes().find((p) => p.id === run.id && p.title === "Ralph: repo [done]"));
    await tmux.waitFor("the loop to end", () => readState(repo).status === "done");
    // When run ends, tmux names the window again (rename-window had turned that off for it).
    await tmux.waitFor("automatic naming back", () => tmux.tmux("show-options", "-w", "-v", "-t", run.id, "automatic-rename").trim() === "on");
    expect(tmux.capture(run.id)).not.toContain("the agent is working"); // erased before the next output
    expect(tmux.capture(starter)).toContain("Follow it with `wt-loop monitor`");
    expect(readState(repo).status).toBe("done");
  }, 60_000);

  test("q stops gracefully: the agent tree is gone, status stopped, exit 4", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ hangSec: 300, grandchild: true }]);
    const pane = tmux.start(repo, env, "wt-loop start --plain --terminal inline --on-complete keep");
    await tmux.waitFor("the agent to start", () => existsSync(join(dir, "grandchild.pid")));
    const agentPid = await tmux.waitFor("the agent pid", () => readState(repo).agent_pid as number);
    tmux.keys(pane, "q");
    expect(await tmux.exitCode(pane)).toBe(4);
    expect(readState(repo).status).toBe("stopped");
    expect(isAlive(agentPid)).toBe(false);
    expect(isAlive(Number(readFileSync(join(dir, "grandchild.pid"), "utf8")))).toBe(false);
    expect(tmux.capture(pane)).toContain("Stopping (q)");
    expect(tmux.sttyAfter(pane)).toMatch(/(^|\s)icanon(\s|$)/m); // raw mode restored
    expect(tmux.sttyAfter(pane)).toMatch(/(^|\s)echo(\s|$)/m);
  }, 60_000);

  test("q q q within 3 s force-quits at once with a warning", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    // The agent ignores SIGTERM: a graceful stop would take the 2 s SIGKILL grace; the force-quit does not wait.
    const { env, dir } = envFor([{ hangSec: 300, ignoreTerm: true }]);
    const pane = tmux.start(repo, env, "wt-loop start --plain --terminal inline --on-complete keep");
    // Once it ignores SIGTERM: a SIGTERM before that ends it at once, the graceful stop is over before
    // the second q, and the loop exits 4 (seen on a loaded machine).
    const agentPid = await tmux.waitFor("the agent to ignore SIGTERM", () => existsSync(join(dir, "ignoring-term")) && (readState(repo).agent_pid as number));
    // Three presses back to back: well within 3 s however loaded the machine is.
    tmux.keys(pane, "q");
    tmux.keys(pane, "q");
    tmux.keys(pane, "q");
    expect(await tmux.exitCode(pane, 10_000)).toBe(130);
    expect(tmux.capture(pane)).toContain("Force-quit");
    expect(tmux.sttyAfter(pane)).toMatch(/(^|\s)icanon(\s|$)/m); // raw mode restored even on force-quit
    expect(isAlive(agentPid)).toBe(false);
    expect(readState(repo)).toMatchObject({ status: "stopped", reason: "Force-quit by the user" });
  }, 60_000);

  test("a slow stop says so after 5 s and suggests q twice more; q q then force-quits", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ hangSec: 300 }]);
    // The stop itself is slow: cleanup's `git update-ref -d` of the loop's branch hangs (a fake git in front of the real one).
    Object.assign(env, {
      PATH: `${join(ROOT, "test/fixtures/git-hang")}:${env.PATH}`,
      REAL_GIT: Bun.which("git")!,
      FAKE_GIT_HANG: join(dir, "script.json"),
      FAKE_GIT_HANG_ON: "-d",
      [SLOW_STOP_VAR]: "500", // the hint half a second into the stop, not 5 s
    });
    const pane = tmux.start(repo, env, "wt-loop start --plain --terminal inline --on-complete cleanup --command-timeout 60");
    await tmux.waitFor("the agent", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).agent_pid);
    tmux.keys(pane, "q");
    await tmux.waitFor("the slow-stop hint", () => tmux.capture(pane).includes("Still stopping… press q twice more"), 15_000);
    tmux.keys(pane, "q");
    tmux.keys(pane, "q");
    expect(await tmux.exitCode(pane, 10_000)).toBe(130);
  }, 60_000);

  test("the completion prompt is answered with keys: cleanup brings the work back to the original branch", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE()]);
    const pane = tmux.start(repo, env, "wt-loop start --plain --terminal inline");
    await tmux.waitFor("the prompt", () => tmux.capture(pane).includes("What should happen to the loop's branch?"));
    expect(tmux.capture(pane)).toContain("cleanup");
    tmux.keys(pane, "Down");
    await tmux.waitFor("cleanup to be selected", () => tmux.capture(pane).includes("● cleanup"));
    tmux.keys(pane, "Enter");
    expect(await tmux.exitCode(pane)).toBe(0);
    expect(readState(repo).completion).toBe("cleanup");
    expect(git(repo, "branch", "--show-current")).toBe("main");
    expect(readFileSync(join(repo, "tasks.md"), "utf8")).not.toContain("- [ ]");
  }, 60_000);

  test("monitor in a second pane shows the same messages as run", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([COMPLETE({ hangSec: 1, messages: ["alpha message"] }), COMPLETE({ messages: ["beta message"] })]);
    const mon = tmux.start(repo, env, "wt-loop monitor --plain");
    await tmux.waitFor("monitor to wait", () => tmux.capture(mon).includes("Waiting for loop to start..."));
    const run = tmux.window(repo, env, "wt-loop start --plain --terminal inline --on-complete keep");
    expect(await tmux.exitCode(run)).toBe(0);
    expect(await tmux.exitCode(mon)).toBe(0);
    const lines = (pane: string) =>
      tmux
        .capture(pane)
        .split("\n")
        .filter((l) => /alpha|beta|iteration \d|Loop done|story \d\/2/.test(l))
        .map((l) => l.trimEnd());
    expect(lines(mon).length).toBeGreaterThan(5);
    expect(lines(mon)).toEqual(lines(run));
  }, 60_000);
});
