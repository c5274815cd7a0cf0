/**
 * Telling the user a loop needs them: when it reaches its final status, when it starts waiting on
 * the completion question, or when it starts waiting on a usage limit. Every channel that exists
 * is used: on a TTY the bell and a desktop notification by escape sequence (OSC 777 and OSC 9, which
 * terminals that do not know them ignore); `notify-send` (Linux) or `osascript` (macOS) when
 * present; and the user's `--notify CMD`, run through `sh -c` in the worktree with the state file's
 * path and the status in its environment. A notification never stops or fails the loop.
 */
import { basename } from "node:path";
import { errorMessage } from "../errors.ts";
import { RUN_TAG_VAR, runTag } from "../proc/contain.ts";
import { exec, type Wrapper } from "../proc/spawn.ts";
import { isFinal, type Status } from "../state/schema.ts";
import { inertLine } from "./inert.ts";
import { windowTitle } from "../text/window-title.ts";

/** What happened: `final` status reached, `question` (keep/cleanup) open, `waiting` on a usage limit. */
export type NoticeKind = "final" | "question" | "waiting";

export interface Notice {
  kind: NoticeKind;
  status: string;
  worktree: string;
  statePath: string;
  reason: string | null;
}

export interface NotifyDeps {
  /** The terminal's own channel (bell, OSC): the view's `notice`, which knows whether there is a terminal. */
  terminal(title: string, body: string): void;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  which(bin: string): string | null;
  /** `--notify CMD`, or null. */
  command: string | null;
  /** The loop run's tag (proc/contain.ts): the command and all it starts are ended with it, as an agent's are. */
  runTag?: string;
  timeoutMs: number;
  /** `--sandbox`: the user's command runs inside it (the desktop notification, wt-loop's own, does not). */
  sandbox?: Wrapper | null;
  warn(message: string): void;
}

export function noticeText(n: Notice): { title: string; body: string } {
  const name = basename(n.worktree);
  const title = windowTitle(name, n.status);
  switch (n.kind) {
    case "final":
      return { title, body: n.reason ?? `The loop is ${n.status}.` };
    case "question":
      return { title, body: `The loop is ${n.status}: keep or clean up its branch? It is waiting for your answer.` };
    case "waiting":
      return { title, body: n.reason ?? "The agent is unavailable (usage limit); the loop is waiting." };
  }
}

const clean = (s: string, max = 200) => {
  // `;` separates OSC 777's fields; a control character (C1's ST too) would end the sequence.
  const flat = inertLine(s).replace(/;/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The bell, OSC 777 (urxvt, foot, Ghostty, WezTerm) and OSC 9 (iTerm2, kitty, WezTerm, Windows Terminal). */
export function terminalNotice(title: string, body: string, inTmux: boolean): string {
  const osc = [`\x1b]777;notify;${clean(title)};${clean(body)}\x07`, `\x1b]9;${clean(`${title}: ${body}`)}\x07`];
  // tmux swallows OSC it does not know; a DCS passthrough (ESC doubled) reaches the outer terminal
  // when tmux allows it (allow-passthrough), and is dropped quietly when it does not.
  const wrap = (s: string) => (inTmux ? `\x1bPtmux;${s.replace(/\x1b/g, "\x1b\x1b")}\x1b\\` : s);
  return "\x07" + osc.map(wrap).join("");
}

/** The environment `--notify CMD` runs with. */
export function notifyEnv(n: Notice): Record<string, string> {
  return {
    WT_LOOP_EVENT: n.kind,
    WT_LOOP_STATUS: n.status,
    WT_LOOP_STATE: n.statePath,
    WT_LOOP_WORKTREE: n.worktree,
    WT_LOOP_REASON: n.reason ?? "",
  };
}

/** Sends one notice on every channel there is; resolves when the commands have finished (bounded). */
export async function notify(n: Notice, d: NotifyDeps): Promise<void> {
  const { title, body } = noticeText(n);
  d.terminal(title, body);
  const runs: Promise<void>[] = [];
  const run = (what: string, argv: string[], env = d.env, contain?: { tag: string }, sandbox?: Wrapper) =>
    runs.push(
      exec(argv, { cwd: n.worktree, env, timeoutMs: d.timeoutMs, contain, sandbox }).then(
        () => {},
        (err) => d.warn(`${what} failed: ${errorMessage(err)}`),
      ),
    );
  const desktop = d.platform === "darwin" ? d.which("osascript") : d.platform === "linux" && hasDisplay(d.env) ? d.which("notify-send") : null;
  if (desktop && d.platform === "darwin")
    // Title and body as arguments, never spliced into the script.
    run("osascript", [desktop, "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", title, body]);
  else if (desktop) run("notify-send", [desktop, "--app-name=wt-loop", title, body]);
  // The user's command is contained like an agent run: what it leaves behind (a `setsid` child) is
  // ended when it exits, and neither holds the finished loop (and its lock) nor outlives it.
  const tag = d.runTag ? { [RUN_TAG_VAR]: d.runTag } : {};
  if (d.command)
    run(
      `The --notify command (${d.command})`,
      ["sh", "-c", d.command],
      { ...d.env, ...notifyEnv(n), ...tag },
      d.runTag ? { tag: d.runTag } : undefined,
      d.sandbox ?? undefined,
    );
  await Promise.all(runs);
}

const hasDisplay = (env: Record<string, string | undefined>) => Boolean(env.DISPLAY || env.WAYLAND_DISPLAY || env.DBUS_SESSION_BUS_ADDRESS);

/**
 * The runner's side: `saw` every state the loop saves (the first final status notifies once),
 * `question` when the completion question is asked, `settle` before the runner ends so the commands
 * finish before the process (and --no-orphans) would end them.
 */
export function loopNotifier(
  loop: { worktree_path: string; started_at: string; notify: string | null; command_timeout_sec: number },
  statePath: string,
  over: Partial<NotifyDeps> & Pick<NotifyDeps, "terminal" | "warn">,
) {
  const deps: NotifyDeps = {
    env: process.env,
    platform: process.platform,
    which: (b) => Bun.which(b),
    command: loop.notify,
    runTag: runTag(loop.worktree_path, loop.started_at),
    timeoutMs: loop.command_timeout_sec * 1000,
    ...over,
  };
  // One after the other: a --notify command sees `final` before `question`, as they happened.
  let chain = Promise.resolve();
  let final = false;
  let waiting = false;
  type Seen = { status: Status; reason: string | null; waiting?: { reason: string; until: string } | null };
  const send = (kind: NoticeKind, s: Seen) => {
    const notice = { kind, status: s.status, reason: s.reason, worktree: loop.worktree_path, statePath };
    chain = chain.then(() => notify(notice, deps)).catch(() => {});
  };
  return {
    saw(s: Seen) {
      // The start of each wait on an unavailable agent (a state with `waiting` after one without).
      if (s.waiting && !waiting)
        send("waiting", { status: s.status, reason: `The agent is unavailable (${s.waiting.reason}); the loop waits until ${s.waiting.until}.` });
      waiting = Boolean(s.waiting);
      if (final || !isFinal(s.status)) return;
      final = true;
      send("final", s);
    },
    question: (s: Seen) => send("question", s),
    waiting: (s: Seen) => send("waiting", s),
    settle: () => chain,
  };
}
