// A new user types at wt-loop as at git or cargo: help that reads well piped or not, suggestions for
// typos, value errors that show the value and the choices, and a JSON answer even when there is no loop.
import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { baseEnv, CLI, wtLoop } from "../helpers/cli.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { commandNames } from "../../src/catalog/catalog.ts";
import { makeRepo, tempDir } from "../helpers/repo.ts";

const ANSI = /\x1b\[/;
// A colour terminal would be allowed colour: only the pipe should keep it out.
const colourEnv = { NO_COLOR: undefined, TERM: "xterm-256color", FORCE_COLOR: "1" };
// Every command the catalog lists: help is written once, in src/catalog/catalog.ts, for all of them.
const COMMANDS = commandNames();
// What a flag typed with a typographic dash (em, en, minus) is told.
const NOT_ASCII = "a dash that is not ASCII '-' (often from copying).";

describe("help", () => {
  test("wt-loop --help piped: no ANSI, every command listed, no trailing spaces", async () => {
    const r = await wtLoop(["--help"], { cwd: tempDir(), env: colourEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\s`, "m"));
    expect(r.stdout).not.toMatch(/[ \t]$/m);
  });

  test.each(COMMANDS)("wt-loop %s --help: plain, aligned, ends with examples", async (cmd) => {
    const r = await wtLoop([cmd, "--help"], { cwd: tempDir(), env: colourEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).not.toMatch(/[ \t]$/m);
    expect(r.stdout).toContain(`Usage: wt-loop ${cmd}`);
    expect((await wtLoop(["help", cmd], { cwd: tempDir(), env: colourEnv })).stdout).toBe(r.stdout); // one source
    const examples = (r.stdout.split("Examples:\n")[1] ?? "").split("\n\n")[0]!;
    // An example is a line at two spaces (what it does sits further right, or on the next lines).
    const shownExamples = examples.match(/^  \S/gm)?.length ?? 0;
    expect(shownExamples).toBeGreaterThanOrEqual(2);
    expect(shownExamples).toBeLessThanOrEqual(3);
    // Options start in one column: every description after a short option begins at the same place.
    const opts = (r.stdout.split("Options:\n")[1] ?? "")
      .split("\n\n")[0]!
      .split("\n")
      .filter((l) => /^  -/.test(l) && /\S {2,}\S/.test(l));
    const columns = new Set(opts.map((l) => l.search(/(?<=\S {2,})\S/)));
    expect(columns.size).toBe(1);
  });

  test("start and run list the exit codes; help start is start --help; --terminal names its terminals", async () => {
    for (const cmd of ["start", "run"]) {
      const r = await wtLoop([cmd, "--help"], { cwd: tempDir() });
      expect(r.stdout).toMatch(/Exit codes:\n  0\s+done\n  1\s+usage or environment error\n  2\s+stuck\n  3\s+stalled\n  4\s+stopped/);
    }
    const a = await wtLoop(["help", "start"], { cwd: tempDir() });
    const b = await wtLoop(["start", "--help"], { cwd: tempDir() });
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout.replace(/\s+/g, " ")).toContain("tmux, tmux-detached, iterm2, terminal-app, kitty, wezterm, alacritty, konsole, gnome-terminal, foot");
    expect((await wtLoop(["help"], { cwd: tempDir() })).stdout).toContain("Commands:");
  });

  test("-V, -v and --version print the version (and, run from source, say so and the platform)", async () => {
    for (const flag of ["-V", "-v", "--version"]) {
      const r = await wtLoop([flag], { cwd: tempDir() });
      expect(r).toMatchObject({ code: 0, stdout: `wt-loop ${pkg.version} (source, ${process.platform}-${process.arch})\n` });
    }
  });
});

describe("mistakes", () => {
  test.each([
    [["strat"], "Unknown command 'strat'. Did you mean 'start'?"],
    [["stauts"], "Unknown command 'stauts'. Did you mean 'status'?"],
    [["help", "histroy"], "Unknown command 'histroy'. Did you mean 'history'?"],
    [["start", "--mx", "3"], "Unknown option --mx. Did you mean --max?"],
    [["start", "--max-retry", "3"], "Unknown option --max-retry. Did you mean --max-retries?"],
    [["start", "--done", "task"], "--done must be tasks or manual, got 'task'"],
    [["start", "--checkpoint", "branches"], "--checkpoint must be branch or stash, got 'branches'"],
    [["start", "--max", ""], "--max is empty"],
    [["start", "--iteration-timeout", ""], "--iteration-timeout is empty"],
    [["start", "fix", "the", "bug"], "the task is one argument. Quote it: wt-loop start 'fix the bug'"],
    // Copied from a document or a chat app, `--json` arrives as an em dash, an en dash or a minus sign.
    [["status", "\u2014json"], `Unknown option \u2014json: ${NOT_ASCII} Did you mean --json?`],
    [["status", "\u2013json"], `Unknown option \u2013json: ${NOT_ASCII} Did you mean --json?`],
    [["status", "\u2212json"], `Unknown option \u2212json: ${NOT_ASCII} Did you mean --json?`],
    [["status", "-\u2013json"], `Unknown option -\u2013json: ${NOT_ASCII} Did you mean --json?`],
    [["history", "\u2014jsno"], `Unknown option \u2014jsno: ${NOT_ASCII} Did you mean --json?`],
    [["status", "\u2014frobnicate"], `Unknown option \u2014frobnicate: ${NOT_ASCII} Run \`wt-loop status --help\` to see the options.`],
    // start takes a task: a dash-word that names an option is the option mistyped, not a one-word task (docs/decisions.md).
    [["start", "\u2014max", "5"], `Unknown option \u2014max: ${NOT_ASCII} Did you mean --max?`],
    [["start", "\u2013\u2013max=5"], `Unknown option \u2013\u2013max: ${NOT_ASCII} Did you mean --max?`],
    [["\u2014version"], `Unknown option \u2014version: ${NOT_ASCII} Did you mean --version?`],
    [["\u2014help"], `Unknown option \u2014help: ${NOT_ASCII} Did you mean --help?`],
    // A number pasted with a minus sign or a dash: "must be a number" would not say why −5 is none.
    [["start", "--max", "\u22125"], `Invalid option: --max \u22125: ${NOT_ASCII} Type --max -5. Nothing was written.`],
    [["start", "--max-cost=\u20131.5"], `Invalid option: --max-cost \u20131.5: ${NOT_ASCII} Type --max-cost -1.5. Nothing was written.`],
    [["max", "\u22125"], `wt-loop max \u22125: ${NOT_ASCII} Type \`wt-loop max -5\`.`],
  ])("wt-loop %p says %p and exits 1", async (args, message) => {
    const repo = makeRepo();
    const r = await wtLoop(args, { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr.split(message).length).toBe(2); // said once
    expect(r.stderr).not.toContain("    at "); // no stack trace
  });

  test("a task that begins with a dash of a document is the task, not an option", async () => {
    for (const task of ["\u2014fix the thing", "\u2014 fix the thing", "\u2013refactor"]) {
      const r = await wtLoop(["start", "--terminal", "inline", "--dry-run", task], { cwd: makeRepo() });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Task:      ${task}\n`);
    }
  });

  test("a word far from every command gets no guess", async () => {
    const r = await wtLoop(["frobnicate"], { cwd: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("Unknown command 'frobnicate'. Run `wt-loop help` for the commands.\n");
  });
});

describe("a folder deleted under the shell", () => {
  // `rm -rf` of the worktree from another terminal, then wt-loop typed in the shell still inside it.
  test.each([["status"], ["list"], ["log"], ["start", "--dry-run"], ["monitor", "--plain"]])(
    "wt-loop %s says the folder is gone, no stack",
    async (...args) => {
      const gone = join(tempDir(), "gone");
      mkdirSync(gone);
      const argv = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(" ");
      const r = Bun.spawnSync(["sh", "-c", `cd '${gone}' && rmdir '${gone}' && exec ${argv}`], { env: baseEnv(), stdout: "pipe", stderr: "pipe" });
      expect(r.stderr.toString()).toBe(
        "The current folder no longer exists (deleted or moved while this shell was in it). `cd` into the worktree again and rerun.\n",
      );
      expect(r.exitCode).toBe(1);
    },
  );
});

describe("status --json without a loop", () => {
  test("prints a JSON object saying there is no loop, and exits 1", async () => {
    const repo = makeRepo();
    const r = await wtLoop(["status", "--json"], { cwd: repo });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ loop: null, worktree_path: repo });
    expect(json.message).toContain("No loop has run");
  });
});
