/**
 * Opening `wt-loop run` in a new terminal (docs/terminals-and-notifications.md). `chooseLauncher` is pure — environment in,
 * command line out — so every terminal's exact command line is tested even where it is not installed.
 */
import { UserError } from "../errors.ts";
import { exec } from "../proc/spawn.ts";

export interface LaunchEnv {
  terminal: string; // auto | inline | a name below
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  which: (bin: string) => string | null;
  cwd: string;
  /** The command to run in the new terminal, as argv. */
  cmd: string[];
  /** A short name for windows/sessions, e.g. `wt-loop-myworktree`. */
  name: string;
}

export interface Launch {
  terminal: string;
  argv: string[];
  /** GUI terminals are started through `sh -c 'setsid … &'` so they outlive wt-loop. */
  background: boolean;
  /** What to tell the user (e.g. how to attach to a detached tmux session). */
  hint?: string;
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/**
 * tmux expands formats in a session or window name and in `-c`: `#(cmd)` runs cmd, `#{…}` is
 * replaced. A worktree folder named `x#(touch ~/p)` ran the command when the loop's session started;
 * `##` is tmux's literal `#`, so nothing in a name or path is expanded (the command's argv never is).
 */
export const tmuxLiteral = (s: string) => s.replaceAll("#", "##");
const applescript = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

function launcherFor(name: string, e: LaunchEnv): Launch | null {
  const { cwd, cmd } = e;
  const shellLine = `cd ${sq(cwd)} && exec ${cmd.map(sq).join(" ")}`;
  switch (name) {
    case "tmux":
      return { terminal: name, background: false, argv: ["tmux", "new-window", "-n", tmuxLiteral(e.name), "-c", tmuxLiteral(cwd), ...cmd] };
    case "tmux-detached":
      return {
        terminal: name,
        background: false,
        argv: ["tmux", "new-session", "-d", "-s", tmuxLiteral(e.name), "-c", tmuxLiteral(cwd), ...cmd],
        // A target (-t) is not expanded: the name as it is, quoted for the shell when it needs it.
        hint: `No display: the loop runs in a detached tmux session. Attach with: tmux attach -t ${/^[\w.@%+=,:\/-]+$/.test(e.name) ? e.name : sq(e.name)}`,
      };
    case "iterm2":
      return {
        terminal: name,
        background: false,
        argv: [
          "osascript",
          "-e",
          'tell application "iTerm2"',
          "-e",
          "set w to (create window with default profile)",
          "-e",
          `tell current session of w to write text ${applescript(shellLine)}`,
          "-e",
          "end tell",
        ],
      };
    case "terminal-app":
      return {
        terminal: name,
        background: false,
        argv: ["osascript", "-e", 'tell application "Terminal"', "-e", "activate", "-e", `do script ${applescript(shellLine)}`, "-e", "end tell"],
      };
    // No --title for kitty/alacritty: it would pin the title and hide the progress we set with OSC.
    case "kitty":
      return { terminal: name, background: true, argv: ["kitty", "--directory", cwd, ...cmd] };
    case "wezterm":
      return { terminal: name, background: true, argv: ["wezterm", "start", "--cwd", cwd, "--", ...cmd] };
    case "alacritty":
      return { terminal: name, background: true, argv: ["alacritty", "--working-directory", cwd, "-e", ...cmd] };
    case "konsole":
      return { terminal: name, background: true, argv: ["konsole", "--workdir", cwd, "-e", ...cmd] };
    case "gnome-terminal":
      return { terminal: name, background: true, argv: ["gnome-terminal", `--working-directory=${cwd}`, "--", ...cmd] };
    case "foot":
      return { terminal: name, background: true, argv: ["foot", `--working-directory=${cwd}`, ...cmd] };
    case "x-terminal-emulator":
    case "xterm":
      return { terminal: name, background: true, argv: [name, "-e", "sh", "-c", shellLine] };
    default:
      // $TERMINAL or an unknown name given with --terminal: the common `-e` convention.
      return { terminal: name, background: true, argv: [name, "-e", "sh", "-c", shellLine] };
  }
}

/** The detection order of docs/terminals-and-notifications.md; null when nothing usable is found. */
export function chooseLauncher(e: LaunchEnv): Launch | null {
  const has = (bin: string) => e.which(bin) !== null;
  const pick = (name: string, bin = name) => (has(bin) ? launcherFor(name, e) : null);
  if (e.terminal !== "auto") {
    const bin = { "tmux-detached": "tmux", iterm2: "osascript", "terminal-app": "osascript" }[e.terminal] ?? e.terminal;
    return pick(e.terminal, bin);
  }
  const env = e.env;
  if (env.TMUX) return pick("tmux");
  if (e.platform === "darwin") {
    if (env.TERM_PROGRAM === "iTerm.app") return pick("iterm2", "osascript");
    if (env.TERM_PROGRAM === "WezTerm") return pick("wezterm") ?? pick("terminal-app", "osascript");
    return pick("terminal-app", "osascript");
  }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return pick("tmux-detached", "tmux");
  const current =
    (env.KITTY_WINDOW_ID && "kitty") ||
    (env.WEZTERM_PANE && "wezterm") ||
    (env.ALACRITTY_WINDOW_ID && "alacritty") ||
    (env.KONSOLE_VERSION && "konsole") ||
    (env.VTE_VERSION && "gnome-terminal") ||
    (env.TERM?.startsWith("foot") && "foot") ||
    null;
  const probe = [
    current,
    env.TERMINAL,
    "x-terminal-emulator",
    "gnome-terminal",
    "konsole",
    "kitty",
    "wezterm",
    "alacritty",
    env.WAYLAND_DISPLAY ? "foot" : null,
    "xterm",
  ];
  for (const name of probe) {
    const l = name ? pick(name) : null;
    if (l) return l;
  }
  return null;
}

export async function openWindow(launch: Launch, cwd: string): Promise<void> {
  // A GUI terminal started directly would be our child, ended with us; `setsid … &` inside a shell
  // that exits at once hands it to init in a session of its own, so it outlives wt-loop.
  // macOS has no setsid(1): nohup at least keeps it from the hang-up when this terminal closes.
  const detach = 'if command -v setsid >/dev/null 2>&1; then exec setsid "$@"; else exec nohup "$@"; fi';
  const argv = launch.background ? ["sh", "-c", `(${detach}) </dev/null >/dev/null 2>&1 &`, "sh", ...launch.argv] : launch.argv;
  try {
    await exec(argv, { cwd, timeoutMs: 15_000, keepGroup: launch.background });
  } catch (err) {
    throw new UserError(`Could not open a ${launch.terminal} window: ${(err as Error).message}. Use --terminal inline to run the loop in this terminal.`);
  }
}

/**
 * `name`, or `name-2`, `name-3`… when a tmux session of that name exists: the session of an earlier
 * loop of this worktree stays while someone attached reads its summary (at most 10 minutes), and
 * `tmux new-session -s` refuses a name in use.
 */
export async function freeSessionName(name: string): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    const r = await exec(["tmux", "has-session", "-t", `=${candidate}`], { cwd: "/", allowFailure: true, timeoutMs: 5000 }).catch(() => null);
    if (!r || r.code !== 0) return candidate; // none of that name (or no tmux server at all)
  }
  return name;
}

export const NO_TERMINAL =
  "No terminal could be found to open the loop in (no tmux, no display, no known terminal emulator). " +
  "Use --terminal inline to run the loop in this terminal, or --terminal NAME to pick one.";

/**
 * A tmux window starts with the tmux server's environment, not ours: the API key or PATH exported in
 * the shell that ran `start` would be missing. Pass every variable that differs with `-e`.
 */
export async function withTmuxEnv(launch: Launch, env: Record<string, string | undefined>): Promise<Launch> {
  if (!launch.terminal.startsWith("tmux")) return launch;
  const r = await exec(["tmux", "show-environment", "-g"], { cwd: "/", allowFailure: true, timeoutMs: 5000 }).catch(() => null);
  if (!r || r.code !== 0) return launch; // no server yet: the one new-session starts inherits our environment
  const server = new Map<string, string>();
  for (const line of r.stdout.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) server.set(line.slice(0, i), line.slice(i + 1));
  }
  const pass: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || k === "TMUX" || k === "TMUX_PANE" || server.get(k) === v) continue;
    pass.push("-e", `${k}=${v}`);
  }
  return { ...launch, argv: [...launch.argv.slice(0, 2), ...pass, ...launch.argv.slice(2)] };
}
