// The first frame `run` and `monitor` write on a terminal is the loop screen (its header and the story list),
// and the first frame of `wt-loop` alone in a worktree is the selection (its list of work), never a blank one: the screen's library draws a frame as soon as the terminal answers its set-up questions,
// and a frame drawn before the screen was attached was an empty screen — a flash, and `run`'s own frame then
// waited for the library's frame pacing and for the preparation's work (issue 35). The bytes the program
// writes are read as the terminal received them (tmux pipe-pane), three starts in a row, as the terminal's
// answers come at a different moment each time.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { testPath } from "../helpers/cli.ts";
import { makeRepo, TASKS_2_STORIES, tempDir } from "../helpers/repo.ts";
import { selectionRepo } from "../helpers/select-fixture.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux, type Tmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();

/** Synchronized output: each frame the library writes begins with this (DEC mode 2026 set). */
const FRAME_START = "\x1b[?2026h";
const ALTERNATE_SCREEN = "\x1b[?1049h";

/**
 * Starts `cmd` in a new window of `repo` once its output is piped (every byte from the first is read), waits for
 * `until` (the stories) in what it wrote; returns the pane and the first frame written after the alternate screen, as text.
 */
async function firstFrame(
  tmux: Tmux,
  repo: string,
  env: Record<string, string>,
  cmd: string,
  first: boolean,
  until = "First story",
): Promise<{ pane: string; frame: string }> {
  const dir = tempDir("first-frame-");
  const [go, raw] = [join(dir, "go"), join(dir, "raw")];
  const line = `while [ ! -e ${go} ]; do sleep 0.02; done; ${cmd}; echo "EXIT=$?"; sleep 60`;
  const pane = first ? tmux.start(repo, env, line) : tmux.window(repo, env, line);
  tmux.tmux("pipe-pane", "-o", "-t", pane, `cat >> ${raw}`);
  writeFileSync(go, "");
  await tmux.waitFor("the stories in the bytes written", () => existsSync(raw) && readFileSync(raw, "latin1").includes(until));
  const written = readFileSync(raw, "latin1");
  const frame = written.slice(written.indexOf(ALTERNATE_SCREEN)).split(FRAME_START)[1] ?? "";
  return { pane, frame };
}

/** What a frame shows, its control sequences (CSI, OSC) taken out. */
const text = (frame: string) =>
  frame
    .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\s+/g, " ")
    .slice(0, 200);

describeWithTmux("the loop screen's first frame is its own", () => {
  test("three starts of run: each first frame written after the alternate screen shows the loop's header and its stories", async () => {
    const tmux = compiled.tmux();
    const { env } = compiled.envFor([{ hangSec: 300 }]);
    for (let i = 0; i < 3; i++) {
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { pane, frame } = await firstFrame(tmux, repo, env, "wt-loop run --on-complete keep", i === 0);
      expect({ start: i + 1, first: text(frame) }).toEqual({ start: i + 1, first: expect.stringMatching(/starting|running/) });
      expect(frame).toContain("Stories");
      // Stopped (q: the agent is ended by its loop), then left (q); the starting screen takes no keys.
      await tmux.waitFor("the loop running its agent", () => /iteration 1\//.test(tmux.capture(pane)));
      tmux.keys(pane, "q");
      await tmux.waitFor("the result's banner", () => tmux.capture(pane).includes("r result"));
      tmux.keys(pane, "q");
      await tmux.waitFor("the exit code", () => /EXIT=\d+/.test(tmux.capture(pane)));
    }
  }, 120_000);

  test("three starts of monitor following a running loop: each first frame shows the loop and its stories", async () => {
    const tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = compiled.envFor([{ hangSec: 300 }]);
    const run = tmux.start(repo, env, "wt-loop run --plain --on-complete keep");
    await tmux.waitFor("the loop running its agent", () => /iteration 1\//.test(tmux.capture(run)));
    for (let i = 0; i < 3; i++) {
      const { pane, frame } = await firstFrame(tmux, repo, env, "wt-loop monitor", false);
      expect({ start: i + 1, first: text(frame) }).toEqual({ start: i + 1, first: expect.stringMatching(/running/) });
      expect(frame).toContain("Stories");
      tmux.keys(pane, "q"); // leaves; the loop goes on
      await tmux.waitFor("the exit code", () => /EXIT=0/.test(tmux.capture(pane)));
    }
  }, 120_000);

  test("five starts of wt-loop alone in a worktree: each first frame shows the selection's work", async () => {
    const tmux = compiled.tmux();
    const { main } = selectionRepo();
    // The real openspec CLI on the PATH: the selection asks it which changes exist.
    const env = { ...compiled.envFor([]).env, PATH: `${dirname(compiled.bin())}:${testPath({ openspec: true })}`, OPENSPEC_TELEMETRY: "0" };
    for (let i = 0; i < 5; i++) {
      const { pane, frame } = await firstFrame(tmux, main, env, "wt-loop", i === 0, "add-greeting");
      expect({ start: i + 1, first: text(frame) }).toEqual({ start: i + 1, first: expect.stringContaining("Work and loops") });
      expect(frame).toContain("add-greeting");
      // Its title, set as the view was attached (before the terminal's set-up), is the terminal's still.
      expect(tmux.tmux("display", "-p", "-t", pane, "#{pane_title}").trim()).toBe(`wt-loop · ${basename(main)}`);
      tmux.keys(pane, "q");
      await tmux.waitFor("the exit code", () => /EXIT=0/.test(tmux.capture(pane)));
    }
  }, 120_000);
});
