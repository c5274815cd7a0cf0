// `run` and `monitor` on a real terminal (tmux on a private socket) draw the loop screen in the
// alternate buffer, with the compiled binary alone in an empty folder (the renderer's native library
// is inside it). Every way out gives the terminal back; a pipe, --plain, TERM=dumb and a renderer that
// cannot start show the line stream as before.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readState } from "../helpers/fixtures.ts";
import { COMPLETE } from "../helpers/loop.ts";
import { git, makeRepo, TASKS_2_STORIES, tempDir } from "../helpers/repo.ts";
import { compiledInTmux } from "../helpers/compiled.ts";
import { describeWithTmux, type Tmux } from "../helpers/tmux.ts";

const compiled = compiledInTmux();
const { envFor } = compiled;
let tmux: Tmux;
const FIRST = COMPLETE({ messages: ["I parsed the config of story one"], write: { "notes.txt": "first notes\n" } });
const HANG = { messages: ["working on story two"], hangSec: 300 };

/** The shell line: the exit code printed, then the pane stays alive so the terminal's state can be read. */
const keep = (cmd: string) => `${cmd}; echo "EXIT=$?"; sleep 60`;
const flag = (t: Tmux, pane: string, f: string) => t.tmux("display", "-p", "-t", pane, `#{${f}}`).trim();
const restored = (t: Tmux, pane: string) => {
  expect(flag(t, pane, "alternate_on")).toBe("0");
  expect(flag(t, pane, "cursor_flag")).toBe("1");
  expect(flag(t, pane, "mouse_any_flag")).toBe("0");
};
const exited = (t: Tmux, pane: string) => t.waitFor("the exit code", () => /EXIT=(\d+)/.exec(t.capture(pane))?.[1]).then(Number);

describeWithTmux("the loop screen in a terminal", () => {
  test("run shows the loop screen; ↓ and Tab change what is shown; q stops gracefully; Enter leaves with the loop's exit code; the terminal is restored", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([FIRST, HANG]);
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep --max 9"));
    await tmux.waitFor("the second story running", () => /›▶ 2\. Second story/.test(tmux.capture(pane)));
    expect(flag(tmux, pane, "alternate_on")).toBe("1");
    expect(flag(tmux, pane, "mouse_any_flag")).toBe("1");
    const screen = tmux.capture(pane);
    expect(screen).toContain("Stories");
    expect(screen).toMatch(/✓ 1\. First story/);
    expect(screen).toMatch(/Agent\s+Tasks\s+Files\s+Verify\s+Prompt/);
    await tmux.waitFor("the running story's message", () => tmux.capture(pane).includes("working on story two"));
    tmux.keys(pane, "Up");
    await tmux.waitFor(
      "story one selected, its messages shown",
      () => /›✓ 1\. First story/.test(tmux.capture(pane)) && tmux.capture(pane).includes("I parsed the config of story one"),
    );
    expect(tmux.capture(pane)).not.toContain("working on story two");
    tmux.keys(pane, "Tab");
    await tmux.waitFor("the Tasks tab", () => /\[x\]|☑|✓ .*first/i.test(tmux.capture(pane)) && !tmux.capture(pane).includes("I parsed the config"));
    tmux.keys(pane, "Tab");
    await tmux.waitFor("the Files tab with story one's file", () => tmux.capture(pane).includes("notes.txt"));
    // Enter: the attempt's whole diff (notes.txt and the ticked tasks.md), as written when it ended.
    tmux.keys(pane, "Enter");
    await tmux.waitFor("notes.txt's diff", () => tmux.capture(pane).includes("+first notes"));
    tmux.keys(pane, "Escape");
    await tmux.waitFor("the diff closed", () => !tmux.capture(pane).includes("+first notes"));
    tmux.keys(pane, "q");
    await tmux.waitFor("the result's banner", () => tmux.capture(pane).includes("r result"));
    expect(readState(repo).status).toBe("stopped");
    tmux.keys(pane, "r");
    await tmux.waitFor("the result with its receipt", () => tmux.capture(pane).includes("The loop is over"));
    // The receipt: each story's attempts, time, tokens and cost (docs/receipt.md).
    expect(tmux.capture(pane)).toMatch(/✓ 1\. First story\s+1 attempt\s+(\d+[hm] )?\d+[sm]\s+[\d,]+ tokens/);
    expect(tmux.capture(pane)).toMatch(/· 2\. Second story\s+1 attempt/);
    expect(flag(tmux, pane, "alternate_on")).toBe("1"); // the result stays until it is read
    tmux.keys(pane, "Space"); // closes the result; the screen stays
    await tmux.waitFor("the result closed", () => !tmux.capture(pane).includes("The loop is over"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(4);
    restored(tmux, pane);
    expect(tmux.capture(pane)).toContain("Loop stopped");
  }, 90_000);

  test("q q q force-quits at once: exit 130, the warning on the restored terminal", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env, dir } = envFor([{ hangSec: 300, ignoreTerm: true }]);
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep"));
    // Until the agent ignores SIGTERM, the first q's graceful stop could end it at once (exit 4, no force-quit).
    await tmux.waitFor("the agent to ignore SIGTERM", () => existsSync(join(dir, "ignoring-term")) && readState(repo).agent_pid);
    tmux.keys(pane, "q");
    tmux.keys(pane, "q");
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(130);
    restored(tmux, pane);
    expect(tmux.capture(pane)).toContain("Force-quit");
    expect(readState(repo).status).toBe("stopped");
  }, 60_000);

  test("monitor attached mid-run shows the stories before it; it re-lays out on a resize and goes compact at 40×10; q leaves and the loop goes on", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([FIRST, HANG]);
    const run = tmux.start(repo, env, "wt-loop run --plain --on-complete keep");
    await tmux.waitFor("story two to run", () => readState(repo).current_story === "2" || tmux.capture(run).includes("working on story two"));
    const mon = tmux.window(repo, env, keep("wt-loop monitor"));
    await tmux.waitFor("the loop screen in monitor", () => /✓ 1\. First story/.test(tmux.capture(mon)));
    tmux.keys(mon, "Up");
    await tmux.waitFor("story one's earlier messages", () => tmux.capture(mon).includes("I parsed the config of story one"));
    tmux.tmux("resize-window", "-t", mon, "-x", "40", "-y", "10");
    await tmux.waitFor("the compact layout", () => {
      const rows = tmux.capture(mon).split("\n");
      return !tmux.capture(mon).includes("┌") && rows.some((r) => r.includes("1. First story"));
    });
    tmux.tmux("resize-window", "-t", mon, "-x", "120", "-y", "30");
    await tmux.waitFor("the split layout again", () => tmux.capture(mon).includes("┌") && /Agent\s+Tasks/.test(tmux.capture(mon)));
    tmux.keys(mon, "q");
    expect(await exited(tmux, mon)).toBe(0);
    restored(tmux, mon);
    expect(tmux.capture(mon)).toContain("The loop keeps running");
    expect(readState(repo).status).toBe("running");
    // Ctrl-C leaves too, with 130, as the line stream's monitor and a shell report an interrupt.
    const again = tmux.window(repo, env, keep("wt-loop monitor"));
    await tmux.waitFor("the loop screen in monitor again", () => /✓ 1\. First story/.test(tmux.capture(again)));
    tmux.keys(again, "C-c");
    expect(await exited(tmux, again)).toBe(130);
    expect(readState(repo).status).toBe("running");
  }, 120_000);

  test("--plain, TERM=dumb and a pipe show the line stream, never the alternate screen", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const { env } = envFor([FIRST]);
    const plain = tmux.start(repo, env, keep("wt-loop run --plain --on-complete keep"));
    expect(await exited(tmux, plain)).toBe(0);
    expect(tmux.capture(plain)).toContain("I parsed the config of story one");
    const dumbRepo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const dumb = tmux.window(dumbRepo, { ...envFor([FIRST]).env, TERM: "dumb" }, keep("wt-loop run --on-complete keep"));
    expect(await exited(tmux, dumb)).toBe(0);
    expect(tmux.capture(dumb)).toContain("I parsed the config of story one");
    const pipedRepo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const piped = tmux.window(pipedRepo, envFor([FIRST]).env, keep("wt-loop run --on-complete keep | cat"));
    expect(await exited(tmux, piped)).toBe(0);
    expect(tmux.capture(piped)).toContain("I parsed the config of story one");
    for (const p of [plain, dumb, piped]) expect(tmux.capture(p)).not.toContain("Stories");
  }, 90_000);

  test("the end question is a dialog: ↓ Enter answers cleanup, the work comes back to the original branch, Enter leaves with exit 0", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const { env } = envFor([FIRST]);
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete ask"));
    await tmux.waitFor("the dialog", () => tmux.capture(pane).includes("what should happen to the loop's branch?"));
    tmux.keys(pane, "Down");
    await tmux.waitFor("cleanup chosen", () => /› cleanup/.test(tmux.capture(pane)));
    tmux.keys(pane, "Enter");
    await tmux.waitFor("the result view", () => tmux.capture(pane).includes("r result"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
    restored(tmux, pane);
    expect(readState(repo).completion).toBe("cleanup");
    expect(git(repo, "branch", "--show-current")).toBe("main");
  }, 60_000);

  test("monitor: s then y stops the loop it follows", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([{ hangSec: 300 }]);
    tmux.start(repo, env, "wt-loop run --plain --on-complete keep");
    await tmux.waitFor("the loop to run", () => readState(repo).agent_pid);
    const mon = tmux.window(repo, env, keep("wt-loop monitor"));
    await tmux.waitFor("the loop screen", () => tmux.capture(mon).includes("Stories"));
    tmux.keys(mon, "s");
    await tmux.waitFor("the question", () => /stop/i.test(tmux.capture(mon)) && /y\/n|\by\b/.test(tmux.capture(mon)));
    tmux.keys(mon, "y");
    await tmux.waitFor("the loop stopped", () => readState(repo).status === "stopped");
    await tmux.waitFor("the result view", () => tmux.capture(mon).includes("r result"));
    tmux.keys(mon, "q");
    expect(await exited(tmux, mon)).toBe(4);
    restored(tmux, mon);
  }, 60_000);

  test("an agent's escape sequences show made visible on the screen; the window title stays the tool's", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const { env } = envFor([{ messages: ["evil \x1b]0;PWNED\x07 and \x1b[2J end"], hangSec: 300 }]);
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep"));
    await tmux.waitFor("the message, made visible", () => tmux.capture(pane).includes("^[]0;PWNED"));
    expect(tmux.capture(pane)).toContain("^[[2J end");
    expect(tmux.panes().find((p) => p.id === pane)!.title).toStartWith("Ralph: repo");
    tmux.keys(pane, "q");
    await tmux.waitFor("the result view", () => tmux.capture(pane).includes("r result"));
    tmux.keys(pane, "Escape");
    expect(await exited(tmux, pane)).toBe(4);
  }, 60_000);

  test("p pauses after the current iteration; + raises the limit by 10; n leaves a note for the next prompt; p again resumes and the loop goes on to done", async () => {
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    // The first agent holds until the pause is asked: at load 17 the keys before `p` took longer than a fixed 4 s.
    const release = join(tempDir(), "release");
    const { env, dir } = envFor([COMPLETE({ waitFile: release }), COMPLETE()]);
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep --max 9"));
    await tmux.waitFor("the first agent", () => existsSync(join(dir, "prompt-1.txt")) && tmux.capture(pane).includes("Stories"));
    tmux.keys(pane, "+");
    await tmux.waitFor("the limit raised", () => readState(repo).max_iterations === 19);
    tmux.keys(pane, "n");
    await tmux.waitFor("the note input", () => tmux.capture(pane).includes("A note for the next prompt"));
    tmux.keys(pane, "-l", "use the v2 API");
    tmux.keys(pane, "Enter");
    await tmux.waitFor("the note saved", () => JSON.stringify(readState(repo).notes ?? []).includes("use the v2 API"));
    tmux.keys(pane, "p");
    await tmux.waitFor("the pause asked", () => readState(repo).pause_requested === true);
    writeFileSync(release, "");
    await tmux.waitFor("paused after story one", () => readState(repo).status === "paused", 60_000);
    expect(existsSync(join(dir, "prompt-2.txt"))).toBe(false);
    await tmux.waitFor("the footer offers resume", () => tmux.capture(pane).includes("p resume · +/- max"));
    tmux.keys(pane, "p");
    await tmux.waitFor("the loop done after story two", () => readState(repo).status === "done", 60_000);
    expect(readFileSync(join(dir, "prompt-2.txt"), "utf8")).toContain("use the v2 API");
    await tmux.waitFor("the result view", () => tmux.capture(pane).includes("r result"));
    tmux.keys(pane, "q");
    expect(await exited(tmux, pane)).toBe(0);
  }, 120_000);

  for (const sig of ["SIGTERM", "SIGHUP"] as const) {
    test(`${sig} to run gives the terminal back and the loop is recorded stopped`, async () => {
      tmux = compiled.tmux();
      const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
      const { env, dir } = envFor([{ hangSec: 300 }]);
      const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep"));
      await tmux.waitFor("the agent to run", () => existsSync(join(dir, "prompt-1.txt")) && readState(repo).runner_pid);
      expect(flag(tmux, pane, "alternate_on")).toBe("1");
      process.kill(readState(repo).runner_pid as number, sig);
      expect(await exited(tmux, pane)).toBe(4);
      restored(tmux, pane);
      expect(readState(repo).status).toBe("stopped");
    }, 60_000);
  }
});

// A temp folder mounted noexec: the renderer's native library cannot be mapped from it.
// Not a tempDir: those are removed by a hook that may run before this file's unmount.
const noexec = mkdtempSync(join(tmpdir(), "wt-loop-noexec-"));
let mounted = false;
afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", noexec]);
  rmSync(noexec, { recursive: true, force: true });
});

describeWithTmux("when the renderer cannot start", () => {
  test("a noexec TMPDIR: one line says so, and the loop runs as the line stream", async () => {
    const m = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "noexec,size=64m", "tmpfs", noexec], { stderr: "pipe" });
    expect(m.stderr.toString()).toBe(""); // the test needs root (as in CI) to make the load really fail
    mounted = true;
    mkdirSync(join(noexec, "t"), { recursive: true });
    tmux = compiled.tmux();
    const repo = makeRepo({ "tasks.md": "## 1. A\n- [ ] a\n" });
    const { env } = envFor([FIRST], { TMPDIR: join(noexec, "t") });
    const pane = tmux.start(repo, env, keep("wt-loop run --on-complete keep"));
    expect(await exited(tmux, pane)).toBe(0);
    const out = tmux.capture(pane);
    expect(out).toContain("The full screen could not start");
    expect(out).toContain("I parsed the config of story one");
    restored(tmux, pane);
    expect(readState(repo).status).toBe("done");
  }, 60_000);
});
