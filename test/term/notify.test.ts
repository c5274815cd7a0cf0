// Notifications: when a loop reaches its final status or waits on the completion question, the
// user's --notify command runs once per event with the state file's path and the status in its
// environment; notify-send is used when present; a TTY gets the bell and OSC 777/9.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { notify, terminalNotice } from "../../src/term/notify.ts";
import { InlineView } from "../../src/term/inline-view.ts";
import { CLI, fakeAgent, testPath } from "../helpers/cli.ts";
import { COMPLETE, runLoop } from "../helpers/loop.ts";
import { makeRepo, tempDir, TASKS_2_STORIES } from "../helpers/repo.ts";
import { Tmux } from "../helpers/tmux.ts";

/** A --notify command that records its WT_LOOP_* environment and the state file's status at that moment. */
function recorder() {
  const dir = tempDir("notify-");
  const log = join(dir, "calls.jsonl");
  const script = join(dir, "record");
  writeFileSync(
    script,
    `#!/usr/bin/env bun
import { appendFileSync, readFileSync } from "node:fs";
const e = process.env;
const file = JSON.parse(readFileSync(e.WT_LOOP_STATE, "utf8")).status;
appendFileSync(${JSON.stringify(log)}, JSON.stringify({ event: e.WT_LOOP_EVENT, status: e.WT_LOOP_STATUS, state: e.WT_LOOP_STATE, worktree: e.WT_LOOP_WORKTREE, reason: e.WT_LOOP_REASON, file, pwd: process.cwd() }) + "\\n");
`,
  );
  chmodSync(script, 0o755);
  return {
    script,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .trim()
            .split("\n")
            .map((l) => JSON.parse(l))
        : [],
  };
}

/** A notify-send on PATH that records its arguments. */
function fakeNotifySend() {
  const dir = tempDir("notify-send-");
  const log = join(dir, "argv.jsonl");
  writeFileSync(join(dir, "notify-send"), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done >> ${log}\necho --- >> ${log}\n`);
  chmodSync(join(dir, "notify-send"), 0o755);
  return {
    dir,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .trim()
            .split("\n---")
            .map((c) => c.trim().split("\n"))
            .filter((c) => c[0])
        : [],
  };
}

describe("--notify CMD", () => {
  test("runs once when the loop is done, after the final state is written, with the state's path and status", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const rec = recorder();
    const send = fakeNotifySend();
    const r = await runLoop(repo, [COMPLETE()], ["--on-complete", "keep", "--notify", rec.script], { PATH: `${send.dir}:${testPath()}`, DISPLAY: ":99" });
    expect(r.code).toBe(0);
    expect(r.state.notify).toBe(rec.script);
    expect(rec.calls()).toEqual([
      {
        event: "final",
        status: "done",
        state: join(repo, ".claude/loop-state.json"),
        worktree: repo,
        reason: "All 2 stories are complete",
        file: "done",
        pwd: repo,
      },
    ]);
    // notify-send, being present (with a display), got the same notice once.
    expect(send.calls()).toEqual([["--app-name=wt-loop", "Ralph: repo [done]", "All 2 stories are complete"]]);
  }, 60_000);

  test("a stuck loop notifies stuck once; a failing command is a warning, never the loop's failure", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const rec = recorder();
    const cmd = `${rec.script}; exit 3`;
    const r = await runLoop(repo, [{ promise: "FAILED: cannot" }], ["--on-complete", "keep", "--max-retries", "1", "--notify", cmd]);
    expect(r.code).toBe(2);
    expect(rec.calls().map((c) => [c.event, c.status, c.file])).toEqual([["final", "stuck", "stuck"]]);
    expect(r.stderr).toContain("warning: The --notify command");
  }, 60_000);

  test("--dry-run shows the command", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [COMPLETE()], ["--dry-run", "--notify", "say done"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Notify:    say done (when the loop ends or waits for you)");
  });

  test("an empty --notify is refused before anything is written", async () => {
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const r = await runLoop(repo, [COMPLETE()], ["--notify", ""]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--notify is empty");
    expect(existsSync(join(repo, ".claude/loop-state.json"))).toBe(false);
  });
});

describe("the completion question in a real terminal", () => {
  let tmux: Tmux | undefined;
  afterEach(() => tmux?.kill());

  test("notifies final, then question while the prompt waits; nothing more once it is answered", async () => {
    tmux = new Tmux();
    const repo = makeRepo({ "tasks.md": TASKS_2_STORIES });
    const rec = recorder();
    const agent = fakeAgent([COMPLETE()], tempDir("fake-agent-"));
    const pane = tmux.start(
      repo,
      { ...agent.env, PATH: testPath(), TERM: "xterm-256color" },
      `${process.execPath} ${CLI} start --plain --terminal inline --on-complete ask --notify '${rec.script}'`,
    );
    await tmux.waitFor("the completion prompt", () => tmux!.capture(pane).includes("What should happen to the loop's branch?"));
    await tmux.waitFor("two notices", () => rec.calls().length >= 2);
    expect(rec.calls().map((c) => [c.event, c.status, c.file])).toEqual([
      ["final", "done", "done"],
      ["question", "done", "done"],
    ]);
    tmux.keys(pane, "Enter");
    expect(await tmux.exitCode(pane)).toBe(0);
    expect(rec.calls()).toHaveLength(2);
  }, 60_000);
});

describe("the notice on a terminal", () => {
  test("bell, OSC 777 and OSC 9; control characters and ';' cannot break out of the sequence", () => {
    expect(terminalNotice("Ralph: wt [done]", "All 2 stories;\x1b]0;x\x9c", false)).toBe(
      "\x07\x1b]777;notify;Ralph: wt [done];All 2 stories ^[]0 x\\x9c\x07\x1b]9;Ralph: wt [done]: All 2 stories ^[]0 x\\x9c\x07",
    );
  });

  test("inside tmux the OSCs pass through to the outer terminal", () => {
    expect(terminalNotice("T", "B", true)).toBe("\x07\x1bPtmux;\x1b\x1b]777;notify;T;B\x07\x1b\\\x1bPtmux;\x1b\x1b]9;T: B\x07\x1b\\");
  });

  test("written only when the output is a TTY (the inline view's notice)", () => {
    const view = (isTTY: boolean, out: string[]) => new InlineView({ out: { isTTY, write: (s: string) => out.push(s) }, env: {} });
    const tty: string[] = [];
    view(true, tty).notice("Ralph: wt [done]", "All done");
    expect(tty.join("")).toStartWith("\x07\x1b]777;notify;Ralph: wt [done];All done\x07");
    const piped: string[] = [];
    view(false, piped).notice("Ralph: wt [done]", "All done");
    expect(piped).toEqual([]);
  });

  test("notify hands the terminal's channel its title and body", async () => {
    const notice = { kind: "final" as const, status: "done", worktree: "/w/wt", statePath: "/w/wt/.claude/loop-state.json", reason: "All done" };
    const got: string[][] = [];
    await notify(notice, {
      terminal: (t, b) => got.push([t, b]),
      env: {},
      platform: "linux",
      which: () => null,
      command: null,
      timeoutMs: 5000,
      warn: () => {},
    });
    expect(got).toEqual([["Ralph: wt [done]", "All done"]]);
  });
});
