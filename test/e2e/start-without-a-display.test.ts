// `start` with no display and no tmux client: the loop runs in a detached tmux session and the user
// is told how to attach; with no usable terminal at all, a clear error and no `starting` state.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeAgent, wtLoop } from "../helpers/cli.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { HAS_TMUX, testWithTmux } from "../helpers/tmux.ts";

// A private tmux socket directory: `tmux new-session` without -L then still never touches the
// user's own server, and this test kills only the server in it.
const socketDir = tempDir("tmux-sock-");
afterEach(() => {
  if (HAS_TMUX) Bun.spawnSync(["tmux", "kill-server"], { env: { ...process.env, TMUX: undefined, TMUX_TMPDIR: socketDir }, stderr: "ignore" });
});

describe("start without a display", () => {
  testWithTmux(
    "runs the loop in a detached tmux session and prints how to attach",
    async () => {
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const agent = fakeAgent([COMPLETE()], tempDir("fake-agent-"));
      const r = await wtLoop(["start", "--on-complete", "keep"], {
        cwd: repo,
        env: { ...agent.env, TMUX_TMPDIR: socketDir, DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Started a loop in repo (tmux-detached)");
      expect(r.stdout).toContain("Attach with: tmux attach -t wt-loop-repo");
      await waitFor("the loop in the tmux session to be done", () => readState(repo).status === "done");
    },
    60_000,
  );

  testWithTmux(
    "a worktree folder named like a tmux format (#(…)) is a name: tmux runs nothing of it",
    async () => {
      const made = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const home = tempDir("tmux-home-");
      const repo = join(dirname(made), "x#(touch $HOME-pwned)#{pane_pid}");
      renameSync(made, repo);
      // The agent is held until the session's name is read: the session ends with its loop.
      const hold = join(tempDir("hold-"), "go");
      const agent = fakeAgent([COMPLETE({ waitFile: hold })], tempDir("fake-agent-"));
      const r = await wtLoop(["start", "--on-complete", "keep"], {
        cwd: repo,
        env: { ...agent.env, HOME: home, TMUX_TMPDIR: socketDir, DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("(tmux-detached)");
      // The session has the name as given (list-sessions shows `$` as `\$`).
      const sessions = () =>
        Bun.spawnSync(["tmux", "list-sessions", "-F", "#{session_name}"], { env: { ...process.env, TMUX: undefined, TMUX_TMPDIR: socketDir } })
          .stdout.toString()
          .replace("\\$", "$");
      await waitFor("the loop's tmux session", () => sessions().includes("wt-loop-x#(touch $HOME-pwned)#{pane_pid}"));
      writeFileSync(hold, "");
      await waitFor("the loop in the tmux session to be done", () => readState(repo).status === "done");
      expect(existsSync(`${home}-pwned`)).toBe(false);
      // The loop ran in the folder as given.
      expect(readState(repo).worktree_path).toBe(repo);
    },
    60_000,
  );

  test("no usable terminal: an error suggesting --terminal inline, and no state left behind", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await wtLoop(["start", "--terminal", "no-such-terminal"], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--terminal inline");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });
});
