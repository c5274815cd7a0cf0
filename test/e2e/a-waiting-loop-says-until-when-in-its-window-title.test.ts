// A loop in a terminal window whose agent hit a usage limit: the window's title says until when it
// waits (`Ralph: <worktree> [waiting until HH:MM]`), then goes back to the iteration count. Real
// Claude Code against the scripted API; the window is a detached tmux window, as `start` opens it
// on a machine without a display.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { NODE_BIN, testPath, wtLoop } from "../helpers/cli.ts";
import { apiError, claudeEnv, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { refuseTimes } from "../helpers/scripted-server.ts";
import { readState } from "../helpers/fixtures.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";
import { waitFor } from "../helpers/wait.ts";
import { clockTime } from "../../src/text/format.ts";

const socketDir = tempDir("tmux-sock-");
const tmuxEnv = { ...process.env, TMUX: undefined, TMUX_TMPDIR: socketDir };
let server: ModelServer | undefined;
afterEach(() => {
  server?.stop();
  Bun.spawnSync(["tmux", "kill-server"], { env: tmuxEnv, stderr: "ignore" });
});

const titles = () => Bun.spawnSync(["tmux", "list-panes", "-a", "-F", "#{pane_title}"], { env: tmuxEnv, stderr: "ignore" }).stdout.toString();

describe("the window title of a waiting loop", () => {
  test("says [waiting until HH:MM] while the agent's usage limit lasts, then the iteration again", async () => {
    const repo = makeRepo({ "tasks.md": "## 1. Greeting\n- [ ] 1.1 Write greet.txt\n" });
    // The reset is set when the refusal is sent, a few seconds ahead: on a loaded machine Claude Code
    // may take longer than any fixed margin to make its first request, and a reset already passed is
    // waited out by backoff, with no reset time to show.
    let reset = 0;
    server = startModelServer(
      [
        [
          { tool: "Write", input: { file_path: join(repo, "greet.txt"), content: "hi\n" } },
          { tool: "Edit", input: { file_path: join(repo, "tasks.md"), old_string: "- [ ] 1.1", new_string: "- [x] 1.1" } },
          { text: "Done. <promise>COMPLETE</promise>" },
        ],
      ],
      refuseTimes(
        1,
        () => true,
        () => {
          reset = Math.floor(Date.now() / 1000) + 6;
          return apiError(429, "rate_limit_error", `Claude AI usage limit reached|${reset}`, { "x-should-retry": "false" });
        },
      ),
    );
    const env = {
      ...claudeEnv(server.url, tempDir("claude-home-")),
      PATH: `${NODE_BIN}:${testPath()}`,
      WT_LOOP_WAIT_SCALE: "0.001",
      TMUX_TMPDIR: socketDir,
      DISPLAY: undefined,
      WAYLAND_DISPLAY: undefined,
    };
    const r = await wtLoop(["start", "--on-complete", "keep"], { cwd: repo, env });
    expect(r.stdout).toContain("(tmux-detached)");
    // The reset plus the scaled margin (15 ms): the title names the minute of the reset.
    const seen: string[] = []; // each title of the loop's pane, in order, once
    const state = () => readState(repo);
    await waitFor(
      "the loop to be done",
      () => {
        const t = titles()
          .split("\n")
          .find((l) => l.startsWith("Ralph: repo"));
        if (t && seen.at(-1) !== t) seen.push(t);
        return state().status === "done";
      },
      60_000,
      { every: 25 },
    );
    const until = `[waiting until ${clockTime(reset * 1000 + 15)}]`;
    const waiting = seen.indexOf(`Ralph: repo ${until}`);
    expect(waiting).toBeGreaterThanOrEqual(0);
    expect(seen.slice(waiting + 1)).toContain("Ralph: repo [1/30]");
    expect(state()).toMatchObject({ status: "done", waiting: null });
    expect(state().iterations[0].unavailable.runs).toBe(1);
  }, 120_000);
});
