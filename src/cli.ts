#!/usr/bin/env bun
/**
 * The command line's front door: version, help, and finding the command, before any command module
 * is loaded — so `--version`, `--help` and a typo cost only this file (start-up, docs/performance.md
 * "Performance"). The command itself is loaded on demand and parsed by citty.
 */
import pkg from "../package.json" with { type: "json" };
import { versionLine } from "./proc/build-info.ts";
import { commandNames, findCommand, type CommandInfo } from "./catalog/catalog.ts";
import { dropGitLocators, hasGitLocators } from "./worktree/git-env.ts";
import { guardStdout } from "./term/stdout.ts";
import { print as printOut, printError } from "./term/print.ts";
import { terminalReleased } from "./term/hangup.ts";

// Help and suggestions are loaded only when shown: a command's start-up pays for neither.
const helpText = () => import("./catalog/help.ts");
const suggest = () => import("./text/suggest.ts");

const VERSION = pkg.version;
const HELP = ["--help", "-h"];
const VERSION_FLAGS = ["--version", "-v", "-V"];

/** Runs the command line `argv` (without the program); sets process.exitCode. */
async function dispatch(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  // On a terminal, inside a worktree, a bare `wt-loop` is the selection screen; anywhere else, the help.
  if (first === undefined && (await selectionScreen())) return;
  if (first === undefined || HELP.includes(first)) return rootHelp();
  if (VERSION_FLAGS.includes(first) && rest.length === 0) return print(versionLine(VERSION));
  if (first === "help") return help(rest);
  // What the completion scripts run at each Tab (text/completion-scripts.ts); not a command of the catalog.
  if (first === "__complete") return (await import("./catalog/complete.ts")).completeMain(rest);
  const info = findCommand(first);
  if (!info) {
    const { didYouMean, typographicFlag, NOT_ASCII_DASH } = await suggest();
    // `wt-loop —version`, pasted from a document: said as the option it was meant to be.
    const typed = typographicFlag(first);
    const flag = typed !== null || first.startsWith("-");
    const what =
      typed !== null ? `Unknown option ${first.split("=")[0]}: ${NOT_ASCII_DASH}` : flag ? `Unknown option ${first}.` : `Unknown command '${first}'.`;
    const hint = didYouMean(typed ?? first.replace(/^-+/, ""), flag ? ["help", "version"] : commandNames(), (c) => (flag ? `--${c}` : `'${c}'`));
    return fail(`${what}${hint} Run \`wt-loop help\` for the commands.`);
  }
  // Only flags before a `--` ask for help: after it, `--help` would be part of the task.
  const flags = rest.slice(0, rest.includes("--") ? rest.indexOf("--") : undefined);
  for (const a of flags) if (HELP.includes(a)) return showCommandHelp(info);
  if (cwdGone()) return fail(CWD_GONE);
  // The binary starts with the JIT reluctant, for commands that print and end (scripts/release/compile.ts);
  // one that runs on (the loop, a screen, a server) gets the normal policy before any of its code runs.
  if (!info.quick) normalJit();
  if (hasGitLocators()) {
    try {
      await dropGitLocators(Boolean(info.worktree));
    } catch (err) {
      return fail((err as Error).message);
    }
  }
  if (info.worktree) (await import("./worktree/worktree.ts")).prefetchWorktree();
  if (info.prefetch) await info.prefetch();
  // Creating process.stdout costs a few milliseconds; console.log ends quietly on a closed pipe by
  // itself. Only the commands that write to the stream need its EPIPE guard (term/stdout.ts).
  if (!info.plainOutput) guardStdout();
  const [{ runCommand }, cmd, { plainFlags }] = await Promise.all([import("citty"), info.load(), import("./commands/args/args.ts")]);
  try {
    // A line of plain flags (`status --json`) is parsed without citty's parse (commands/args/args.ts).
    const args = plainFlags(cmd, rest);
    if (args) await cmd.run!({ rawArgs: rest, args, data: undefined, cmd } as never);
    else await runCommand(cmd, { rawArgs: rest });
  } catch (err) {
    // The commands catch their own errors (commands/args/args.ts `action`); what reaches here is citty's.
    fail(`${(err as Error).message} Run \`wt-loop help ${info.name}\` for usage.`);
  }
}

/** True when the selection screen was shown (process.exitCode set); false when help is due instead. */
async function selectionScreen(): Promise<boolean> {
  const term = process.env.TERM;
  if (!term || term === "dumb") return false;
  // A pipe or a file on stdout is told by one fstat; node:tty, which costs more to load than the rest of
  // the help, is asked only when stdout may be a terminal.
  const { fstatSync } = await import("node:fs");
  if (!fstatSync(1).isCharacterDevice()) return false;
  const { isatty } = await import("node:tty");
  if (!isatty(0) || !isatty(1)) return false;
  if (cwdGone()) {
    fail(CWD_GONE);
    return true;
  }
  normalJit();
  const code = await (await import("./run/select-session.ts")).selectionEntry();
  if (code === null) return false;
  process.exitCode = code;
  return true;
}

async function help(rest: string[]): Promise<void> {
  const name = rest[0];
  if (name === undefined) return rootHelp();
  const info = findCommand(HELP.includes(name) ? "help" : name);
  if (!info) return fail(`Unknown command '${name}'.${(await suggest()).didYouMean(name, commandNames())} Run \`wt-loop help\` for the commands.`);
  return showCommandHelp(info);
}

async function rootHelp(): Promise<void> {
  const h = await helpText();
  print(h.rootHelp(VERSION, h.helpStyle()));
}

async function showCommandHelp(info: CommandInfo): Promise<void> {
  const [h, cmd] = await Promise.all([helpText(), info.load()]);
  const args = typeof cmd.args === "function" ? await cmd.args() : ((await cmd.args) ?? {});
  print(h.commandHelp(info, args, h.helpStyle()));
}

const CWD_GONE = "The current folder no longer exists (deleted or moved while this shell was in it). `cd` into the worktree again and rerun.";

/** The shell's folder was removed under it (`rm -rf` from another terminal): every path a command would resolve fails. */
function cwdGone(): boolean {
  try {
    process.cwd();
    return false;
  } catch {
    return true;
  }
}

const normalJit = () => Bun.unsafe.setJITPolicy(1);

function print(text: string): void {
  printOut(text); // console.log, not process.stdout: see guardStdout below
}

function fail(message: string): void {
  printError(message); // it may quote what the user typed
  process.exitCode = 1;
}

await dispatch(process.argv.slice(2));
// The terminal went away, or a prompt on it was let go of: nothing is left to show or read, and what
// the screen library still holds for a dead terminal (a write it keeps polling), or the prompt
// library for a question answered elsewhere (a read), must not keep this process alive.
if (terminalReleased()) process.exit();
