/**
 * Runs one command of one case with one binary and keeps what a user would see: stdout, stderr, the exit
 * code (or the signal), and the loop's files after it. Piped (stdout and stderr apart, the statusline's
 * JSON on stdin), or in a terminal of a given width (`script` gives the command a pty: what a user at a
 * terminal sees, colours and the terminal's width included; stdout and stderr arrive together there).
 */
import { mask } from "./clock.ts";
import type { Case } from "./cases.ts";
import { fill, reset, snapshot, type Laid, type Pids } from "./world.ts";

export interface Command {
  argv: string[];
  /** `pipe`, or a terminal this many columns wide. */
  tty: number | null;
}

export interface Seen {
  stdout: string;
  stderr: string;
  exit: string;
  files: string;
}

/** What each case runs: every read-only command piped, and those that fit the terminal's width at 40, 80 and 200 columns. */
export function commands(tty: boolean, c: Case): Command[] {
  const piped = [
    ["status"],
    ["status", "--json"],
    ["history"],
    ["history", "--json"],
    ["history", "--runs"],
    ["log"],
    ["log", "--json"],
    ["list"],
    ["list", "--json"],
    ["statusline"],
    ...(c.extra ?? []),
  ].map((argv) => ({ argv, tty: null }));
  if (!tty) return piped;
  return [...piped, ...[40, 80, 200].flatMap((cols) => [["status"], ["history"], ["log"], ["list"]].map((argv) => ({ argv, tty: cols })))];
}

export const describeCommand = (c: Case, cmd: Command) =>
  `wt-loop ${cmd.argv.join(" ")}  (${cmd.tty ? `terminal ${cmd.tty} columns` : `piped, COLUMNS=${c.columns}`}, TZ=${c.tz}` +
  `${c.at ? `, in ${c.at}` : ""}${Object.keys(c.env ?? {}).length ? `, ${Object.keys(c.env!).join(" ")} set` : ""})`;

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const TIMEOUT_MS = 60_000;

export interface RunContext {
  laid: Laid;
  pids: Pids;
  home: string;
  clock: Record<string, string> | null;
}

export function runCommand(bin: string, c: Case, cmd: Command, ctx: RunContext): Seen {
  reset(ctx.laid, ctx.pids);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: ctx.home,
    XDG_CONFIG_HOME: `${ctx.home}/.config`,
    LANG: "C.UTF-8",
    TZ: c.tz,
    COLUMNS: String(cmd.tty ?? c.columns),
    LINES: "50",
    TERM: cmd.tty ? "xterm-256color" : "dumb",
    ...(cmd.tty === 40 || !cmd.tty ? { NO_COLOR: "1" } : {}),
    ...Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, v.replaceAll("__WT__", ctx.laid.worktree)])),
    ...(ctx.clock ?? {}),
  };
  const argv = cmd.tty
    ? ["script", "-q", "-e", "-c", `stty cols ${cmd.tty} rows 50 2>/dev/null; exec ${[bin, ...cmd.argv].map(quote).join(" ")}`, "/dev/null"]
    : [bin, ...cmd.argv];
  const stdin = !cmd.tty && cmd.argv[0] === "statusline" && cmd.argv.length === 1 ? Buffer.from(fill(c.statusline, ctx.laid.worktree, null, null)) : "ignore";
  const p = Bun.spawnSync(argv, { cwd: ctx.laid.cwd, env, stdin, stdout: "pipe", stderr: "pipe", timeout: TIMEOUT_MS });
  const exit = p.exitCode !== null ? `exit ${p.exitCode}` : `signal ${p.signalCode}${p.exitedDueToTimeout ? ` (no end in ${TIMEOUT_MS / 1000} s)` : ""}`;
  return { stdout: p.stdout.toString(), stderr: p.stderr.toString(), exit, files: snapshot(ctx.laid) };
}

/**
 * What differs between two binaries' runs when each one's own runner is named by its own pid: each
 * side's pid and start time, its binary's path and commit, read as the same placeholder; without a fixed
 * clock, the clock's traces masked too.
 */
export function normalize(s: Seen, own: Pids["own"], bin: string, masked: boolean): Seen {
  const f = (t: string) => {
    // `--version` names the commit each was built from: that differs by design.
    let out = t.replaceAll(bin, "<binary>").replace(/\(commit [^,)]+, /g, "(commit <commit>, ");
    // Only where a pid or a start time is named ("pid 123", `"runner_pid": 123`): the same digits elsewhere (a token count) are data.
    if (own)
      out = out
        .replace(new RegExp(`(pid\\W{0,4})${own.pid}\\b`, "g"), "$1<runner pid>")
        .replace(new RegExp(`(started\\W{0,4})${RegExp.escape(own.started)}\\b`, "g"), "$1<runner start>");
    return masked ? mask(out) : out;
  };
  return { stdout: f(s.stdout), stderr: f(s.stderr), exit: s.exit, files: f(s.files) };
}
